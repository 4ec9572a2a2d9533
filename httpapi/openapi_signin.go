package httpapi

import (
	"fmt"
	"net/http"

	"github.com/docmill/docmill"
)

// The OpenAPI parts of sign-up and sign-in by mailed links and of
// browser sessions (signin.go, session.go).

func signinOpenAPI(paths, schemas obj) {
	limits := fmt.Sprintf("Links mailed by sign-up and sign-in together are limited to %d an hour to one mailbox, %d from one client "+
		"address and %d from one network (IPv4 /24, IPv6 /64); past them, 429 rate_limited with Retry-After.",
		mailsPerMailbox, mailsPerAddress, mailsPerNetwork)
	paths["/v1/signup"] = obj{"post": public(withErrors(obj{
		"operationId": "signup",
		"tags":        []string{tagAccount},
		"summary":     "Mail a link that opens a Free account (when sign-up is open)",
		"description": "The account and its first key are made only when the link is opened (POST /v1/sessions). An address " +
			"that has an account gets a sign-in link instead, and the answer is the same byte for byte, so that it tells nothing " +
			"of who has an account. Addresses are compared in lower case, without a +tag, and for gmail.com without dots. " +
			"404 not_found when sign-up is closed on this server. " + limits,
		"requestBody": linkRequestBody(true),
		"responses":   obj{"202": obj{"description": "The mail is queued.", "content": jsonResponse(ref("MailSent"), signupSent)}},
	}, 400, 404, 429))}
	paths["/v1/login"] = obj{"post": public(withErrors(obj{
		"operationId": "login",
		"tags":        []string{tagAccount},
		"summary":     "Mail a sign-in link",
		"description": "An address with an account gets a one-time sign-in link; another gets nothing, and the answer is the " +
			"same. " + limits,
		"requestBody": linkRequestBody(false),
		"responses":   obj{"202": obj{"description": "The mail is queued, if the address has an account.", "content": jsonResponse(ref("MailSent"), loginSent)}},
	}, 400, 429))}
	paths["/v1/sessions"] = obj{"post": public(withErrors(obj{
		"operationId": "openSession",
		"tags":        []string{tagAccount},
		"summary":     "Open a mailed link: start a browser session (and, for a sign-up link, make the account)",
		"description": "The link is {base_url}/#/verify/{token}; its page POSTs the token here. A link works once, for 24 hours: " +
			"another time 410 gone. A sign-up link makes the Free account and its first key, shown only in this answer. " +
			"403 account_suspended for a suspended account; 403 forbidden when the request's Origin is another site.",
		"requestBody": obj{"required": true, "content": obj{"application/json": obj{
			"schema": obj{"type": "object", "required": []string{"token"}, "properties": obj{
				"token": obj{"type": "string", "description": "The token of the mailed link."}}},
			"example": obj{"token": "q0Xr7fJtZxk2m3Q0b4b1lJ1c4u1v8fQ3Gm7bJ2H8n5s"},
		}}},
		"responses": obj{"201": obj{"description": "Signed in; the session cookie is set.",
			"headers": obj{"Set-Cookie": obj{"schema": obj{"type": "string"}, "description": sessionCookie +
				"=...; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax, and Secure when the server's base URL is https."}},
			"content": jsonResponse(ref("OpenedSession"), exampleOpenedSession())}},
	}, 400, 403, 410))}
	sessionAnswers := func(o obj) obj { return withErrors(o, http.StatusUnauthorized, http.StatusForbidden) }
	paths["/v1/session"] = obj{
		"get": sessionOnly(sessionAnswers(op("getSession", tagAccount, "The browser's session, and its CSRF token", "200",
			"The session.", jsonResponse(ref("Session"), exampleSession())))),
		"delete": sessionOnly(withErrors(obj{
			"operationId": "deleteSession", "tags": []string{tagAccount},
			"summary": "Sign this browser out",
			"description": "Revokes this session only (the account's others go on) and clears its cookie; without a cookie, the same answer. " +
				"Needs X-CSRF-Token, as every request made with the cookie other than GET and HEAD.",
			"responses": obj{"204": obj{"description": "Signed out."}},
		}, http.StatusForbidden)),
	}
	schemas["LinkRequest"] = obj{"type": "object", "required": []string{"email"}, "properties": obj{
		"email": obj{"type": "string", "format": "email", "maxLength": 254},
		"name":  obj{"type": "string", "maxLength": 100, "description": "Sign-up only: the account's name (default: the email)."},
		"lang":  obj{"type": "string", "enum": []string{"en", "ru"}, "description": "The mail's language (default: from Accept-Language, else en)."},
	}}
	schemas["MailSent"] = obj{"type": "object", "required": []string{"status", "message"}, "properties": obj{
		"status":  obj{"type": "string", "const": "mail_sent"},
		"message": obj{"type": "string"},
	}}
	schemas["OpenedSession"] = obj{"type": "object", "required": []string{"account", "csrf_token", "expires_at"}, "properties": obj{
		"account": obj{"type": "object", "required": []string{"account_id", "email", "name", "plan"}, "properties": obj{
			"account_id": obj{"type": "string", "pattern": "^acct_"}, "email": obj{"type": "string"},
			"name": obj{"type": "string"}, "plan": obj{"type": "string"},
		}},
		"api_key":    obj{"type": "string", "pattern": "^dm_live_", "description": "Sign-up links only: the account's first key, shown once."},
		"key_prefix": obj{"type": "string", "description": "Sign-up links only."},
		"note":       obj{"type": "string", "description": "Sign-up links only."},
		"csrf_token": obj{"type": "string", "description": "X-CSRF-Token of the requests made with this session."},
		"expires_at": obj{"type": "string", "format": "date-time"},
	}}
	schemas["Session"] = obj{"type": "object", "required": []string{"account_id", "email", "csrf_token", "expires_at"}, "properties": obj{
		"account_id": obj{"type": "string", "pattern": "^acct_"},
		"email":      obj{"type": "string"},
		"csrf_token": obj{"type": "string", "description": "X-CSRF-Token of the requests made with this session."},
		"expires_at": obj{"type": "string", "format": "date-time"},
	}}
}

// linkRequestBody is the body of POST /v1/signup (name allowed) and
// POST /v1/login.
func linkRequestBody(signup bool) obj {
	ex := obj{"email": "you@example.com", "lang": "en"}
	if signup {
		ex["name"] = "Acme"
	}
	return obj{"required": true, "content": obj{"application/json": obj{"schema": ref("LinkRequest"), "example": ex}}}
}

// sessionOnly marks an operation that takes the session cookie only.
func sessionOnly(o obj) obj {
	o["security"] = []obj{{"session": []string{}}}
	return o
}

func exampleOpenedSession() obj {
	return obj{"account": obj{"account_id": "acct_4kqzv2mac5x7tjr5y3w6zeaqb4", "email": "you@example.com", "name": "Acme", "plan": docmill.PlanFree},
		"api_key": "dm_live_3bOj2ro0ZkXo5PM6ZtQEv8qzpvcrk5v4", "key_prefix": "dm_live_3bOj", "note": "Store this key now; it is not shown again.",
		"csrf_token": "Yv3xj2Q1bq9l0n4pZx7wQ8R2f6kT1dH5sM3cA0eU9oI", "expires_at": "2026-12-27T10:00:00Z"}
}

func exampleSession() obj {
	return obj{"account_id": "acct_4kqzv2mac5x7tjr5y3w6zeaqb4", "email": "you@example.com",
		"csrf_token": "Yv3xj2Q1bq9l0n4pZx7wQ8R2f6kT1dH5sM3cA0eU9oI", "expires_at": "2026-12-27T10:00:00Z"}
}
