package httpapi

import "net/http"

// routes is the whole HTTP surface.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()

	// Processing and jobs: an API key or a browser session (session.go)
	// is required. Process calls apply
	// their rate limit themselves, after answering Idempotency-Key replays.
	mux.Handle("POST /v1/{tool}/process", s.authed(s.handleProcess))
	mux.Handle("GET /v1/jobs", s.authed(s.limited(scopeRead, s.handleListJobs)))
	mux.Handle("GET /v1/jobs/{job_id}", s.authed(s.limited(scopeRead, s.handleGetJob))) // ?wait=N: long poll
	mux.Handle("DELETE /v1/jobs/{job_id}", s.authed(s.limited(scopeRead, s.handleDeleteJob)))
	mux.Handle("GET /v1/account", s.authed(s.limited(scopeRead, s.handleAccount)))

	// The caller's API keys (keys.go).
	mux.Handle("GET /v1/keys", s.authed(s.limited(scopeRead, s.handleListKeys)))
	mux.Handle("POST /v1/keys", s.authed(s.limited(scopeRead, s.smallBody(s.handleCreateKey))))
	mux.Handle("PATCH /v1/keys/{prefix}", s.authed(s.limited(scopeRead, s.smallBody(s.handleRenameKey))))
	mux.Handle("DELETE /v1/keys/{prefix}", s.authed(s.limited(scopeRead, s.handleRevokeKey)))

	// Webhook endpoints of the caller's account (webhooks.go).
	mux.Handle("POST /v1/webhooks", s.authed(s.limited(scopeRead, s.smallBody(s.handleCreateWebhook))))
	mux.Handle("GET /v1/webhooks", s.authed(s.limited(scopeRead, s.handleListWebhooks)))
	mux.Handle("GET /v1/webhooks/{webhook_id}", s.authed(s.limited(scopeRead, s.handleGetWebhook)))
	mux.Handle("DELETE /v1/webhooks/{webhook_id}", s.authed(s.limited(scopeRead, s.handleDeleteWebhook)))
	mux.Handle("POST /v1/webhooks/{webhook_id}/rotate-secret", s.authed(s.limited(scopeRead, s.handleRotateWebhookSecret)))
	mux.Handle("POST /v1/webhooks/{webhook_id}/enable", s.authed(s.limited(scopeRead, s.handleEnableWebhook)))
	mux.Handle("GET /v1/webhooks/{webhook_id}/deliveries", s.authed(s.limited(scopeRead, s.handleWebhookDeliveries)))

	// Public: the catalogue, the node's limits, the OpenAPI form, the
	// server's settings and plans (config.go).
	mux.HandleFunc("GET /v1/tools", s.handleTools)
	mux.HandleFunc("GET /v1/tools/{tool}", s.handleTool)
	mux.HandleFunc("GET /v1/limits", s.handleLimits)
	mux.HandleFunc("GET /v1/openapi.json", s.handleOpenAPI)
	mux.HandleFunc("GET /v1/config", s.handleConfig)
	mux.HandleFunc("GET /docs", s.handleReference) // the API reference for people (reference.go)
	mux.HandleFunc("GET /docs/{asset}", s.handleReferenceAsset)

	// Sign-up and sign-in by mailed links, browser sessions (signin.go).
	mux.HandleFunc("POST /v1/signup", s.smallBody(s.handleSignup))
	mux.HandleFunc("POST /v1/login", s.smallBody(s.handleLogin))
	mux.HandleFunc("POST /v1/sessions", s.smallBody(s.handleOpenSession))
	mux.HandleFunc("GET /v1/session", s.handleGetSession)
	mux.HandleFunc("DELETE /v1/session", s.handleDeleteSession)

	// Signed, expiring result downloads (GET also answers HEAD).
	mux.HandleFunc("GET /files/{job_id}/{filename}", s.handleFile)

	// Operations.
	mux.HandleFunc("GET /healthz", s.handleHealthz)
	mux.HandleFunc("GET /readyz", s.handleReadyz)
	mux.Handle("GET /metrics", s.metricsHandler())

	// The web interface: a page and its assets, calling the API above.
	if s.cfg.Web != nil {
		mux.Handle("GET /{$}", s.cfg.Web)
		mux.Handle("GET /static/", s.cfg.Web)
	}

	return s.observe(s.perClient(s.recoverPanics(s.problemsForMux(mux))))
}
