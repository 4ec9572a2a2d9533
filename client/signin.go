package client

import (
	"context"
	"net/http"
	"time"
)

// Sign-up and sign-in mail a single-use link to the address; the link's
// page opens it (OpenLink) to make the account of a sign-up and start a
// browser session. Programs use keys; these calls are for tools and
// tests that act for a person.

// MailSent is the answer to Signup and Login: the same whether or not
// the address has an account.
type MailSent struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// Signup asks the server to mail email a link that opens a new Free
// account named name ("": the email), in lang ("en", "ru"; "": the
// server's choice), or a sign-in link if the address has an account.
func (c *Client) Signup(ctx context.Context, email, name, lang string) (*MailSent, error) {
	var out MailSent
	_, err := c.callJSON(ctx, http.MethodPost, "/v1/signup", map[string]string{"email": email, "name": name, "lang": lang}, &out)
	return &out, err
}

// Login asks the server to mail email a sign-in link, if the address has
// an account.
func (c *Client) Login(ctx context.Context, email, lang string) (*MailSent, error) {
	var out MailSent
	_, err := c.callJSON(ctx, http.MethodPost, "/v1/login", map[string]string{"email": email, "lang": lang}, &out)
	return &out, err
}

// OpenedSession is the answer to OpenLink.
type OpenedSession struct {
	Account struct {
		AccountID string `json:"account_id"`
		Email     string `json:"email"`
		Name      string `json:"name"`
		Plan      string `json:"plan"`
	} `json:"account"`
	// APIKey and KeyPrefix are the first key of an account a sign-up
	// link made, shown this once; empty for a sign-in link.
	APIKey    string    `json:"api_key"`
	KeyPrefix string    `json:"key_prefix"`
	CSRFToken string    `json:"csrf_token"`
	ExpiresAt time.Time `json:"expires_at"`
	// Cookie is the session cookie the server set (name=value), for a
	// caller that goes on as the browser would.
	Cookie string `json:"-"`
}

// OpenLink opens a mailed link by its token (what follows "#/verify/"):
// it works once. It is not retried, since a second attempt would find
// the link used.
func (c *Client) OpenLink(ctx context.Context, token string) (*OpenedSession, error) {
	once := *c
	once.Retry = NoRetry
	var out OpenedSession
	r, err := once.callJSON(ctx, http.MethodPost, "/v1/sessions", map[string]string{"token": token}, &out)
	if err != nil {
		return nil, err
	}
	for _, ck := range (&http.Response{Header: r.Header}).Cookies() {
		out.Cookie = ck.Name + "=" + ck.Value
	}
	return &out, nil
}
