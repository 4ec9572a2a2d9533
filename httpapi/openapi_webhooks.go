package httpapi

import (
	"strings"

	"github.com/docmill/docmill"
)

// webhooksOpenAPI adds to an OpenAPI document the webhook endpoints'
// paths, their schemas, and (OpenAPI 3.1's top-level "webhooks") the
// requests docmill sends to them.
func webhooksOpenAPI(paths, schemas, doc obj) {
	webhookPaths(paths)
	webhookSchemas(schemas)
	doc["webhooks"] = obj{"jobEvent": obj{"post": jobEventOperation()}}
}

// webhookPaths adds the paths of the caller's webhook endpoints.
func webhookPaths(paths obj) {
	idParam := []obj{{"name": "webhook_id", "in": "path", "required": true, "schema": obj{"type": "string", "pattern": "^wh_[a-z2-7]{26}$"}}}
	paths["/v1/webhooks"] = obj{
		"post": rateLimited(withErrors(obj{
			"operationId": "createWebhook",
			"tags":        []string{tagWebhooks},
			"summary":     "Add a webhook endpoint",
			"description": "The URL must be https:// and must not be or resolve to a loopback, private, link-local, multicast or " +
				"metadata address (invalid_parameter on url), unless the server runs with --allow-private-urls. Plans bound the " +
				"number of endpoints (Free 1, Pro 5, Team 20): past it, 409 conflict. The answer is the only one that shows the secret.",
			"requestBody": obj{"required": true, "content": obj{"application/json": obj{"schema": obj{
				"type": "object", "required": []string{"url"}, "additionalProperties": false,
				"properties": obj{
					"url":    obj{"type": "string", "format": "uri", "maxLength": 2048},
					"events": obj{"type": "array", "minItems": 1, "items": obj{"type": "string", "enum": docmill.WebhookEvents}, "description": "Default: every event."},
				},
			}}}},
			"responses": obj{"201": obj{
				"description": "The endpoint, with its secret (shown once).",
				"headers": obj{"Location": obj{"required": true, "schema": obj{"type": "string"},
					"description": "The endpoint's URL: /v1/webhooks/{webhook_id}."}},
				"content": jsonResponse(ref("Webhook"), exampleWebhook(true)),
			}},
		}, 400, 409)),
		"get": rateLimited(op("listWebhooks", tagWebhooks, "The caller's webhook endpoints, oldest first", "200", "The endpoints.",
			jsonResponse(ref("WebhookList"), obj{"webhooks": []obj{exampleWebhook(false)}}))),
	}
	paths["/v1/webhooks/{webhook_id}"] = obj{
		"parameters": idParam,
		"get": rateLimited(withErrors(op("getWebhook", tagWebhooks, "One webhook endpoint", "200", "The endpoint.",
			jsonResponse(ref("Webhook"), exampleWebhook(false))), 404)),
		"delete": rateLimited(withErrors(obj{"operationId": "deleteWebhook", "tags": []string{tagWebhooks},
			"summary":   "Delete a webhook endpoint (deliveries still due are dropped)",
			"responses": obj{"204": obj{"description": "Deleted."}}}, 404)),
	}
	paths["/v1/webhooks/{webhook_id}/rotate-secret"] = obj{
		"parameters": idParam,
		"post": rateLimited(withErrors(op("rotateWebhookSecret", tagWebhooks, "Give the endpoint a new secret; the old one keeps signing beside it for 24 h", "200",
			"The endpoint, with its new secret (shown once).", jsonResponse(ref("Webhook"), exampleWebhook(true))), 404)),
	}
	paths["/v1/webhooks/{webhook_id}/enable"] = obj{
		"parameters": idParam,
		"post": rateLimited(withErrors(op("enableWebhook", tagWebhooks, "Enable a disabled endpoint again (events of jobs that ended meanwhile are not sent)", "200",
			"The endpoint.", jsonResponse(ref("Webhook"), exampleWebhook(false))), 404)),
	}
	paths["/v1/webhooks/{webhook_id}/deliveries"] = obj{
		"parameters": append(idParam, obj{"name": "limit", "in": "query", "schema": obj{"type": "integer", "minimum": 1, "maximum": maxAttemptsShown, "default": maxAttemptsShown}}),
		"get": rateLimited(withErrors(op("listWebhookDeliveries", tagWebhooks, "The endpoint's recent delivery attempts, newest first", "200", "The attempts.",
			jsonResponse(ref("WebhookDeliveries"))), 400, 404)),
	}
}

// webhookSchemas adds the schemas of an endpoint and its delivery
// attempts.
func webhookSchemas(schemas obj) {
	schemas["Webhook"] = obj{"type": "object", "required": []string{"id", "url", "events", "created_at", "enabled"}, "properties": obj{
		"id":              obj{"type": "string", "pattern": "^wh_[a-z2-7]{26}$"},
		"url":             obj{"type": "string", "format": "uri"},
		"events":          obj{"type": "array", "items": obj{"type": "string", "enum": docmill.WebhookEvents}},
		"created_at":      obj{"type": "string", "format": "date-time"},
		"enabled":         obj{"type": "boolean"},
		"disabled_at":     obj{"type": "string", "format": "date-time"},
		"disabled_reason": obj{"type": "string", "description": "Why deliveries stopped: the endpoint answered 410 Gone, or every attempt failed for 5 days."},
		"failing_since":   obj{"type": "string", "format": "date-time", "description": "The first failed attempt since the last success."},
		"previous_secret_expires_at": obj{"type": "string", "format": "date-time",
			"description": "After a rotation: until then the previous secret signs too."},
		"secret": obj{"type": "string", "pattern": "^whsec_", "description": "Only in the answers of creation and rotation."},
	}}
	schemas["WebhookList"] = obj{"type": "object", "required": []string{"webhooks"}, "properties": obj{"webhooks": obj{"type": "array", "items": ref("Webhook")}}}
	schemas["WebhookDeliveries"] = obj{"type": "object", "required": []string{"deliveries"}, "properties": obj{"deliveries": obj{"type": "array", "items": ref("WebhookAttempt")}}}
	schemas["WebhookAttempt"] = obj{"type": "object", "required": []string{"message_id", "event", "job_id", "attempt", "attempted_at", "succeeded", "status_code", "error", "duration_ms", "next_retry_at"}, "properties": obj{
		"message_id":    obj{"type": "string", "description": "The webhook-id header: the same on every attempt of one event."},
		"event":         obj{"type": "string", "enum": docmill.WebhookEvents},
		"job_id":        obj{"type": "string"},
		"attempt":       obj{"type": "integer", "minimum": 1},
		"attempted_at":  obj{"type": "string", "format": "date-time"},
		"succeeded":     obj{"type": "boolean"},
		"status_code":   obj{"type": []string{"integer", "null"}, "description": "null when the endpoint did not answer"},
		"error":         obj{"type": []string{"string", "null"}},
		"duration_ms":   obj{"type": "integer"},
		"next_retry_at": obj{"type": []string{"string", "null"}, "format": "date-time", "description": "null when no further attempt will be made"},
	}}
}

// jobEventOperation is the request docmill sends to an endpoint when a
// job ends.
func jobEventOperation() obj {
	// The event's schema is inline in the request below, not a component:
	// oapi-codegen (v2.8) keeps only the components that paths use, and
	// would leave a client's alias of the request body undefined.
	event := obj{"type": "object", "required": []string{"type", "timestamp", "data"}, "properties": obj{
		"type":      obj{"type": "string", "enum": docmill.WebhookEvents},
		"timestamp": obj{"type": "string", "format": "date-time", "description": "When the job reached its final status."},
		"data":      ref("Job"),
	}}

	header := func(name, desc string) obj {
		return obj{"name": name, "in": "header", "required": true, "schema": obj{"type": "string"}, "description": desc}
	}
	return obj{
		"operationId": "jobEvent",
		"tags":        []string{tagWebhooks},
		"summary":     "A job reached a final status (job.done, job.failed, job.canceled)",
		"description": "Sent per the Standard Webhooks specification (https://www.standardwebhooks.com/) to each enabled " +
			"endpoint of the job's account subscribed to the event, with User-Agent docmill-webhooks/VERSION, a 10 s timeout " +
			"and no redirects followed. A 2xx answer is a delivery. Network errors, 5xx, 429 and 3xx are retried after " +
			strings.Join([]string{"5 s", "5 min", "30 min", "2 h", "5 h", "10 h"}, ", ") +
			" (seven attempts in all), or after the answer's Retry-After when it is longer; other 4xx are not retried. " +
			"410 Gone disables the endpoint, and so does failing every attempt for 5 days.",
		"parameters": []obj{
			header("webhook-id", "msg_...: the same on every attempt of one event; use it to drop duplicates."),
			header("webhook-timestamp", "Unix seconds of this attempt."),
			header("webhook-signature", "v1,<base64 HMAC-SHA256 of \"{webhook-id}.{webhook-timestamp}.{body}\">, keyed with the base64-decoded "+
				"part of the secret after whsec_; two of them, space-separated, while a rotated secret's previous one still signs."),
		},
		"requestBody": obj{"required": true, "content": obj{"application/json": obj{"schema": event}}},
		"responses":   obj{"2XX": obj{"description": "Delivered."}},
	}
}

func exampleWebhook(secret bool) obj {
	wh := obj{"id": "wh_4kqzv2mac5x7tjr5y3w6zeaqb4", "url": "https://hooks.example.com/docmill",
		"events": docmill.WebhookEvents, "created_at": "2026-11-22T10:00:00Z", "enabled": true}
	if secret {
		wh["secret"] = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	}
	return wh
}
