package main

import (
	"fmt"
	"go/format"
	"io"
	"strings"

	"github.com/docmill/docmill"
)

// docsGoParamsCommand is the command that writes the Go client's typed
// params, named in the file itself and in the test that holds the file
// to it.
const docsGoParamsCommand = "go run ./cmd/docmill docs go-params > client/tools_gen.go"

// goInitialisms are the words of slugs and param names written in capitals
// in Go identifiers.
var goInitialisms = map[string]bool{
	"pdf": true, "pdfa": true, "jpg": true, "png": true, "svg": true, "odt": true,
	"html": true, "url": true, "ocr": true, "dpi": true, "mb": true, "id": true,
}

// writeGoParams writes the Go client's client/tools_gen.go from reg: one
// struct per tool, named after its slug (compress-pdf: CompressPDF), that
// implements client.Params. A required param is a plain field, always
// sent; an optional one is a pointer, sent only when set, so the server's
// default applies otherwise. Integers are int, numbers float64, booleans
// bool, the other kinds string; a string enum has a type of its own and a
// constant per value.
func writeGoParams(w io.Writer, reg *docmill.Registry) error {
	var body strings.Builder
	for _, t := range reg.All() {
		for _, p := range t.Params {
			if id := goIdent(p.Name); id == "" || id == "Tool" || id == "FormValues" {
				return fmt.Errorf("%s: param %q makes no Go field of its own", t.Slug, p.Name)
			}
		}
		writeGoTool(&body, t)
	}
	var b strings.Builder
	b.WriteString("// Code generated from the tool registry by `" + docsGoParamsCommand + "`; DO NOT EDIT.\n\n")
	b.WriteString("package client\n")
	if strings.Contains(body.String(), "strconv.") {
		b.WriteString("\nimport \"strconv\"\n")
	}
	b.WriteString(body.String())
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		return fmt.Errorf("format the generated Go: %w", err)
	}
	_, err = w.Write(src)
	return err
}

// writeGoTool writes one tool's struct, its enum types and its methods.
func writeGoTool(b *strings.Builder, t *docmill.Tool) {
	name := goIdent(t.Slug)
	for _, p := range t.Params {
		if typ := goEnumType(name, p); typ != "" {
			fmt.Fprintf(b, "\n// %s is a value of %s's %s.\ntype %s string\n\nconst (\n", typ, name, p.Name, typ)
			for _, e := range p.Enum {
				fmt.Fprintf(b, "\t%s%s %s = %q\n", typ, goIdent(e), typ, e)
			}
			b.WriteString(")\n")
		}
	}
	fmt.Fprintf(b, "\n// %s are the params of %s: %s.\ntype %s struct {\n", name, t.Slug, goComment(t.Title), name)
	for _, p := range t.Params {
		if doc := jsParamDoc(p); doc != "" {
			fmt.Fprintf(b, "\t// %s\n", goComment(doc))
		}
		typ := goFieldType(name, p)
		if !p.Required {
			typ = "*" + typ
		}
		fmt.Fprintf(b, "\t%s %s\n", goIdent(p.Name), typ)
	}
	b.WriteString("}\n")
	fmt.Fprintf(b, "\n// Tool is %q.\nfunc (%s) Tool() string { return %q }\n", t.Slug, name, t.Slug)
	fmt.Fprintf(b, "\n// FormValues are the form fields of the params that are set.\nfunc (p %s) FormValues() map[string]string {\n\tv := map[string]string{}\n", name)
	for _, p := range t.Params {
		field := "p." + goIdent(p.Name)
		if p.Required {
			fmt.Fprintf(b, "\tv[%q] = %s\n", p.Name, goFormat(name, p, field))
			continue
		}
		fmt.Fprintf(b, "\tif %s != nil {\n\t\tv[%q] = %s\n\t}\n", field, p.Name, goFormat(name, p, "*"+field))
	}
	b.WriteString("\treturn v\n}\n")
}

// goFieldType is the Go type of a param's value (without the pointer of
// an optional one).
func goFieldType(tool string, p docmill.Param) string {
	if typ := goEnumType(tool, p); typ != "" {
		return typ
	}
	return goFieldKind(p)
}

// goEnumType is the name of the type of a string enum's values, "" when
// the param is not one or its values do not make distinct identifiers.
func goEnumType(tool string, p docmill.Param) string {
	if len(p.Enum) == 0 || goFieldKind(p) != "string" {
		return ""
	}
	seen := map[string]bool{}
	for _, e := range p.Enum {
		id := goIdent(e)
		if id == "" || seen[id] {
			return ""
		}
		seen[id] = true
	}
	return tool + goIdent(p.Name)
}

// goFieldKind is the Go type of a param's kind.
func goFieldKind(p docmill.Param) string {
	switch p.Type {
	case docmill.TypeInteger:
		return "int"
	case docmill.TypeNumber:
		return "float64"
	case docmill.TypeBoolean:
		return "bool"
	}
	return "string"
}

// goFormat is the expression that writes the value x of param p as the
// form field the server parses.
func goFormat(tool string, p docmill.Param, x string) string {
	if goEnumType(tool, p) != "" {
		return "string(" + x + ")"
	}
	switch goFieldKind(p) {
	case "int":
		return "strconv.Itoa(" + x + ")"
	case "float64":
		return "strconv.FormatFloat(" + x + ", 'f', -1, 64)"
	case "bool":
		return "strconv.FormatBool(" + x + ")"
	}
	return x
}

// goIdent is s (a slug, a param name, an enum value) as an exported Go
// identifier: its words, split at anything not a letter or digit,
// capitalised, the initialisms in capitals; "" when s has no word.
func goIdent(s string) string {
	words := strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	var b strings.Builder
	for _, w := range words {
		if goInitialisms[strings.ToLower(w)] {
			b.WriteString(strings.ToUpper(w))
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// goComment is s on one line.
func goComment(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
