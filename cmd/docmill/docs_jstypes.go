package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/docmill/docmill"
)

// docsJSTypesCommand is the command that writes the JavaScript SDK's
// param types, named in the file itself and in the test that holds the
// file to it.
const docsJSTypesCommand = "go run ./cmd/docmill docs js-types > sdk/js/src/tools.ts"

// writeJSTypes writes the TypeScript module of the SDK (sdk/js) that
// types every tool's params from reg, so that a param of the wrong name
// or type is a compile error: ToolParams (the params of each slug, the
// required ones not optional) and TOOLS (each tool's file counts and
// whether it is long). Numbers and booleans are typed as such (the SDK
// sends them as form fields in their canonical text); an enum is the
// union of its values.
func writeJSTypes(w io.Writer, reg *docmill.Registry) error {
	var b strings.Builder
	b.WriteString("// Generated from the tool registry by `" + docsJSTypesCommand + "`; do not edit.\n\n")
	b.WriteString("/** The params of every tool, by slug, as the server's registry declares them. */\n")
	b.WriteString("export interface ToolParams {\n")
	for _, t := range reg.All() {
		fmt.Fprintf(&b, "  /** %s. */\n  %s: {", jsComment(t.Title), jsString(t.Slug))
		if len(t.Params) == 0 {
			b.WriteString("};\n")
			continue
		}
		b.WriteString("\n")
		for _, p := range t.Params {
			if doc := jsParamDoc(p); doc != "" {
				fmt.Fprintf(&b, "    /** %s */\n", doc)
			}
			opt := "?"
			if p.Required {
				opt = ""
			}
			fmt.Fprintf(&b, "    %s%s: %s;\n", jsKey(p.Name), opt, jsType(p))
		}
		b.WriteString("  };\n")
	}
	b.WriteString("}\n\n")
	b.WriteString("/** A tool's slug. */\nexport type ToolSlug = keyof ToolParams;\n\n")
	b.WriteString("/** What each tool takes: its files (a tool with maxFiles 0 takes its params only) and whether it is long (answered 202 at once). */\n")
	b.WriteString("export const TOOLS: { readonly [T in ToolSlug]: { readonly minFiles: number; readonly maxFiles: number; readonly long: boolean } } = {\n")
	for _, t := range reg.All() {
		fmt.Fprintf(&b, "  %s: { minFiles: %d, maxFiles: %d, long: %t },\n", jsString(t.Slug), t.MinFiles, t.MaxFiles, t.Long)
	}
	b.WriteString("};\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// jsType is the TypeScript type of a param's value.
func jsType(p docmill.Param) string {
	numeric := p.Type == docmill.TypeInteger || p.Type == docmill.TypeNumber
	if len(p.Enum) > 0 {
		vals := make([]string, len(p.Enum))
		for i, e := range p.Enum {
			if _, err := strconv.ParseFloat(e, 64); numeric && err == nil {
				vals[i] = e
			} else {
				vals[i] = jsString(e)
			}
		}
		return strings.Join(vals, " | ")
	}
	switch {
	case numeric:
		return "number"
	case p.Type == docmill.TypeBoolean:
		return "boolean"
	}
	return "string"
}

// jsParamDoc is a param's doc comment: its description, kind, default
// and bounds.
func jsParamDoc(p docmill.Param) string {
	parts := []string{}
	if d := strings.TrimSuffix(strings.Join(strings.Fields(p.Description), " "), "."); d != "" {
		parts = append(parts, d+".")
	}
	switch p.Type {
	case docmill.TypePages:
		parts = append(parts, "A page selection such as `1-3,5,8-`.")
	case docmill.TypeColor:
		parts = append(parts, "A colour, `#rrggbb`.")
	case docmill.TypeURL:
		parts = append(parts, "A URL.")
	case docmill.TypeInteger:
		parts = append(parts, "A whole number.")
	}
	if a := allowed(docmill.Param{Min: p.Min, Max: p.Max}); a != "" {
		if p.Type == docmill.TypeString {
			a = "length " + a
		}
		parts = append(parts, "Allowed: "+a+".")
	}
	if p.Default != "" {
		parts = append(parts, "Default: `"+p.Default+"`.")
	}
	return jsComment(strings.Join(parts, " "))
}

// jsComment keeps s from ending the comment it is put in.
func jsComment(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "*/", `*\/`)
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}

// jsKey is a property name: bare when it is an identifier.
func jsKey(name string) string {
	for i, r := range name {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return jsString(name)
		}
	}
	return name
}
