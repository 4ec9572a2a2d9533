package httpapi

import "github.com/docmill/docmill"

// pipelineOpenAPI completes the pipeline's operation, which the registry
// loop made as any tool's: its steps field is JSON text whose schema is
// PipelineStep's array (OpenAPI 3.1's contentMediaType and
// contentSchema), and its rules beyond the schema are written out. A
// node without the pipeline has nothing to complete.
func pipelineOpenAPI(paths, schemas obj) {
	op := dig(paths, "/v1/"+docmill.PipelineSlug+"/process", "post")
	steps := dig(op, "requestBody", "content", "multipart/form-data", "schema", "properties", docmill.StepsParam)
	if op == nil || steps == nil {
		return
	}
	steps["type"] = "string"
	steps["contentMediaType"] = "application/json"
	steps["contentSchema"] = obj{"type": "array", "minItems": 1, "maxItems": docmill.MaxSteps, "items": ref("PipelineStep")}
	schemas["PipelineStep"] = obj{
		"type": "object", "required": []string{"tool"}, "additionalProperties": false,
		"properties": obj{
			"tool":   obj{"type": "string", "description": "A tool's slug (GET /v1/tools); not pipeline."},
			"params": obj{"type": "object", "additionalProperties": obj{"type": []string{"string", "number", "boolean", "null"}}, "description": "The tool's own params; null leaves one out."},
		},
	}
	desc, _ := op["description"].(string)
	op["description"] = desc + " Every step is checked before anything runs: an unknown tool, a bad param, " +
		"a step that cannot take what the step before makes, a tool that may make a zip anywhere but last, or more than " +
		"10 steps is a 400 invalid_parameter naming the step (steps[1].tool, steps[2].params.quality); nothing is charged. " +
		"The job is long (202 at once) if any step is; its timeout is the sum of its steps' within the server's job timeout. " +
		"meta.steps lists each step's tool, duration_ms and meta. A step that fails fails the job: its message begins " +
		"\"Step N (tool): \" and its errors name steps[N-1]. A pipeline needs as many operations left as it has steps, and " +
		"is charged one a step when it ends done; failed and canceled pipelines are not charged."
}

// dig returns the object at the path of keys under o, or nil.
func dig(o obj, keys ...string) obj {
	for _, k := range keys {
		next, ok := o[k].(obj)
		if !ok {
			return nil
		}
		o = next
	}
	return o
}
