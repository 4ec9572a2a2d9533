package httpapi

// The OpenAPI parts of the server's settings and plans (GET /v1/config)
// and of the caller's keys (/v1/keys).

func accountOpenAPI(paths, schemas obj) {
	paths["/v1/config"] = obj{"get": public(op("getConfig", tagAccount, "This server's sign-up setting and plans, with their prices", "200",
		"The settings.", jsonResponse(ref("Config"), exampleConfig())))}
	paths["/v1/keys"] = obj{
		"get": rateLimited(op("listKeys", tagAccount, "The caller's API keys, revoked ones too, oldest first", "200",
			"The keys (never the keys themselves: their display prefixes).", jsonResponse(ref("KeyList")))),
		"post": rateLimited(withErrors(obj{
			"operationId": "createKey",
			"tags":        []string{tagAccount},
			"summary":     "Add an API key to the caller's account (shown once)",
			"description": "409 conflict when the account has 10 active keys. A rotation is a new key, then DELETE of the old one.",
			"requestBody": obj{"required": false, "content": obj{"application/json": obj{
				"schema":  obj{"type": "object", "properties": obj{"name": obj{"type": "string", "maxLength": 100, "description": "Default: api."}}},
				"example": obj{"name": "billing server"},
			}}},
			"responses": obj{"201": obj{"description": "The new key, shown once.", "content": jsonResponse(ref("NewKey"))}},
		}, 400, 409)),
	}
	paths["/v1/keys/{prefix}"] = obj{
		"parameters": []obj{{"name": "prefix", "in": "path", "required": true, "example": "dm_live_4kQz",
			"schema": obj{"type": "string", "pattern": "^dm_live_[0-9A-Za-z]{4}$"}, "description": "The key's display prefix (GET /v1/keys)."}},
		"patch": rateLimited(withErrors(obj{
			"operationId": "renameKey",
			"tags":        []string{tagAccount},
			"summary":     "Rename one of the caller's keys",
			"requestBody": obj{"required": true, "content": obj{"application/json": obj{
				"schema": obj{"type": "object", "required": []string{"name"}, "properties": obj{
					"name": obj{"type": "string", "minLength": 1, "maxLength": 100}}},
				"example": obj{"name": "billing server"},
			}}},
			"responses": obj{"200": obj{"description": "The key, renamed.", "content": jsonResponse(ref("Key"))}},
		}, 400, 404)),
		"delete": rateLimited(withErrors(op("revokeKey", tagAccount, "Revoke one of the caller's keys (the calling one too)", "200",
			"The key, revoked.", jsonResponse(ref("Key"))), 404)),
	}
	schemas["Config"] = obj{"type": "object", "required": []string{"signup", "plans", "max_upload_bytes"}, "properties": obj{
		"signup":           obj{"type": "string", "enum": []string{"open", "closed"}, "description": "open: POST /v1/signup mails a link that opens a Free account."},
		"plans":            obj{"type": "array", "items": ref("Plan"), "description": "Lowest queue priority (cheapest) first."},
		"max_upload_bytes": obj{"type": "integer", "description": "The server's cap on one request's files, whatever the plan."},
	}}
	plan := planLimitsSchema()
	plan["description"] = "A plan: its limits and price."
	plan["required"] = append([]string{"name", "price"}, plan["required"].([]string)...)
	props := obj{"name": obj{"type": "string"}, "price": obj{"oneOf": []obj{ref("Price"), {"type": "null"}},
		"description": "null: on request (agreed per customer)."}}
	for k, v := range plan["properties"].(obj) {
		props[k] = v
	}
	plan["properties"] = props
	schemas["Plan"] = plan
	schemas["Price"] = obj{"type": "object", "required": []string{"amount", "currency", "period", "from"}, "properties": obj{
		"amount":   obj{"type": "integer", "minimum": 0, "description": "Whole units of the currency."},
		"currency": obj{"type": "string", "description": "ISO 4217, such as RUB."},
		"period":   obj{"type": "string", "description": "What the amount pays for: month."},
		"from":     obj{"type": "boolean", "description": "A starting price (\"from 2,490 RUB a month\")."},
	}}
	schemas["Key"] = obj{"type": "object", "required": []string{"prefix", "name", "created_at", "revoked_at", "last_used_at", "last_used_ip", "current"}, "properties": obj{
		"prefix":       obj{"type": "string", "pattern": "^dm_live_"},
		"name":         obj{"type": "string"},
		"created_at":   obj{"type": "string", "format": "date-time"},
		"revoked_at":   obj{"type": []string{"string", "null"}, "format": "date-time"},
		"last_used_at": obj{"type": []string{"string", "null"}, "format": "date-time", "description": "The key's last use, to the minute; null if never used."},
		"last_used_ip": obj{"type": []string{"string", "null"}, "description": "The client address of the key's last use."},
		"current":      obj{"type": "boolean", "description": "The key that made this request (false for every key when a browser session asks)."},
	}}
	schemas["KeyList"] = obj{"type": "object", "required": []string{"keys"}, "properties": obj{"keys": obj{"type": "array", "items": ref("Key")}}}
	schemas["NewKey"] = obj{"type": "object", "required": []string{"api_key", "prefix", "name", "created_at", "note"}, "properties": obj{
		"api_key":    obj{"type": "string", "pattern": "^dm_live_", "description": "Shown once: store it now."},
		"prefix":     obj{"type": "string"},
		"name":       obj{"type": "string"},
		"created_at": obj{"type": "string", "format": "date-time"},
		"note":       obj{"type": "string"},
	}}
}

func exampleConfig() obj {
	rub := func(n int, from bool) obj {
		return obj{"amount": n, "currency": "RUB", "period": "month", "from": from}
	}
	return obj{"signup": "open", "max_upload_bytes": 4 << 30, "plans": []obj{
		{"name": "free", "price": rub(0, false), "operations_per_month": 100, "max_file_bytes": 100 << 20, "requests_per_minute": 20,
			"jobs_in_flight": 2, "queue_priority": 4, "result_ttl_seconds": 3600, "webhooks": 1},
		{"name": "pro", "price": rub(490, false), "operations_per_month": 10000, "max_file_bytes": 2 << 30, "requests_per_minute": 120,
			"jobs_in_flight": 8, "queue_priority": 3, "result_ttl_seconds": 86400, "webhooks": 5},
		{"name": "team", "price": rub(2490, true), "operations_per_month": 100000, "max_file_bytes": 2 << 30, "requests_per_minute": 600,
			"jobs_in_flight": 32, "queue_priority": 2, "result_ttl_seconds": 86400, "webhooks": 20},
		{"name": "custom", "price": nil, "operations_per_month": 1000000, "max_file_bytes": 4 << 30, "requests_per_minute": 3000,
			"jobs_in_flight": 128, "queue_priority": 1, "result_ttl_seconds": 86400, "webhooks": 50},
	}}
}
