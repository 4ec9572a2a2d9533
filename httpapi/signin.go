package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobview"
)

// Sign-up and sign-in go through a mailed, single-use link: POST
// /v1/signup and POST /v1/login queue the mail (and answer the same
// whether or not the address has an account, so that neither tells who
// has one); the page at the link POSTs its token to /v1/sessions, which
// creates the account on a sign-up link, and starts a browser session.

// mailSentBody is the answer of a request for a link. It is the same
// whatever the address, so that it tells nothing of its accounts.
type mailSentBody struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

var (
	signupSent = mailSentBody{Status: "mail_sent",
		Message: "A link is on its way to this address: open it to confirm the address and sign in. It works once, within 24 hours."}
	loginSent = mailSentBody{Status: "mail_sent",
		Message: "If an account uses this address, a sign-in link is on its way to it. It works once, within 24 hours."}
)

// linkRequest is the body of POST /v1/signup and POST /v1/login.
type linkRequest struct {
	Email string `json:"email"`
	Name  string `json:"name"`
	Lang  string `json:"lang"`
}

// handleSignup mails a link that opens a new Free account, or a sign-in
// link when the address has an account already. It exists only when
// sign-up is open.
func (s *Server) handleSignup(w http.ResponseWriter, r *http.Request) {
	if !s.cfg.Signup {
		s.writeError(w, r, docmill.Errorf(docmill.CodeNotFound, "Sign-up is closed on this server."))
		return
	}
	s.mailLink(w, r, true)
}

// handleLogin mails a sign-in link when the address has an account, and
// nothing otherwise; the answer is the same.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	s.mailLink(w, r, false)
}

// mailLink reads a link request, applies the mail limits (mailLimits)
// and queues the mail that the address's account, or its lack, calls
// for; signup says whether an address without an account gets a
// sign-up link (POST /v1/signup) or nothing (POST /v1/login).
func (s *Server) mailLink(w http.ResponseWriter, r *http.Request, signup bool) {
	var body linkRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<10)).Decode(&body); err != nil {
		s.writeError(w, r, docmill.Errorf(docmill.CodeInvalidRequest, `The body must be JSON: {"email": "you@example.com"}.`))
		return
	}
	typed := strings.TrimSpace(body.Email)
	mailbox, ok := docmill.CanonicalEmail(typed)
	if !ok {
		s.writeError(w, r, docmill.ParamError("email", "must be an email address"))
		return
	}
	name := strings.TrimSpace(body.Name)
	if utf8.RuneCountInString(name) > 100 {
		s.writeError(w, r, docmill.ParamError("name", "must be at most 100 characters"))
		return
	}
	if err := s.allowMail(r, mailbox); err != nil {
		s.writeError(w, r, err)
		return
	}
	acct, err := s.accountByMailbox(r, mailbox, typed)
	if err != nil {
		s.writeError(w, r, docmill.Internal(err))
		return
	}
	lang := mailLang(body.Lang, r.Header.Get("Accept-Language"))
	switch {
	case acct != nil:
		err = s.queueLink(r, docmill.TokenSignIn, docmill.MailSignIn, acct.Email, func(t *docmill.AuthToken) {
			t.Email, t.AccountID, t.Lang = acct.Email, acct.ID, lang
		})
	case signup:
		err = s.queueLink(r, docmill.TokenSignup, docmill.MailSignup, typed, func(t *docmill.AuthToken) {
			t.Email, t.Name, t.Lang = mailbox, name, lang
		})
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if signup {
		writeJSON(w, http.StatusAccepted, signupSent)
	} else {
		writeJSON(w, http.StatusAccepted, loginSent)
	}
}

// accountByMailbox returns the account of mailbox (CanonicalEmail's
// form), or of the address as typed in lower case (accounts made before
// addresses were stored in canonical form); nil if none.
func (s *Server) accountByMailbox(r *http.Request, mailbox, typed string) (*docmill.Account, error) {
	for i, email := range []string{mailbox, strings.ToLower(typed)} {
		if i > 0 && email == mailbox {
			break
		}
		a, err := s.cfg.Store.AccountByEmail(r.Context(), email)
		if err == nil {
			return a, nil
		}
		if !errors.Is(err, docmill.ErrNotFound) {
			return nil, err
		}
	}
	return nil, nil
}

// queueLink stores a fresh token of purpose (fill sets what it carries)
// and queues a mail of kind with its link to the address to.
func (s *Server) queueLink(r *http.Request, purpose docmill.TokenPurpose, kind docmill.MailKind, to string, fill func(*docmill.AuthToken)) error {
	if s.cfg.Outbox == nil {
		return docmill.Errorf(docmill.CodeServiceUnavailable, "This server sends no mail.")
	}
	tok, stored := docmill.NewAuthToken(purpose, "", s.cfg.Now())
	fill(&stored)
	if err := s.cfg.Store.CreateAuthToken(r.Context(), &stored); err != nil {
		return docmill.Internal(err)
	}
	m := docmill.Mail{To: to, Kind: kind, Lang: stored.Lang, Link: s.cfg.BaseURL + "/#/verify/" + tok, Expires: stored.ExpiresAt}
	if err := s.cfg.Outbox.QueueMail(r.Context(), m); err != nil {
		return docmill.Internal(err)
	}
	return nil
}

// mailLang is the reader's language: the one asked for, else the first
// of Accept-Language that docmill speaks, else English.
func mailLang(asked, acceptLanguage string) string {
	for _, l := range append([]string{asked}, strings.Split(acceptLanguage, ",")...) {
		l, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(l)), ";")
		l, _, _ = strings.Cut(l, "-")
		if l == "en" || l == "ru" {
			return l
		}
	}
	return "en"
}

// handleOpenSession opens a mailed link: it uses up its token, creates
// the account of a sign-up link (with its first key, shown only here),
// and starts a browser session, set as a cookie. A token unknown, used
// or expired is 410 gone. A page of another site (Origin) may not open
// one, lest it sign the browser in to an account of its choosing.
func (s *Server) handleOpenSession(w http.ResponseWriter, r *http.Request) {
	if err := checkOrigin(r, s.cfg.BaseURL); err != nil {
		s.writeError(w, r, err)
		return
	}
	var body struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<10)).Decode(&body); err != nil {
		s.writeError(w, r, docmill.Errorf(docmill.CodeInvalidRequest, `The body must be JSON: {"token": "..."}.`))
		return
	}
	if strings.TrimSpace(body.Token) == "" {
		s.writeError(w, r, docmill.ParamError("token", "is required"))
		return
	}
	gone := docmill.Errorf(docmill.CodeGone, "This link was used or has expired; ask for a new one.")
	now := s.cfg.Now()
	t, err := s.cfg.Store.UseAuthToken(r.Context(), docmill.HashKey(strings.TrimSpace(body.Token)), now)
	if errors.Is(err, docmill.ErrNotFound) {
		s.writeError(w, r, gone)
		return
	}
	if err != nil {
		s.writeError(w, r, docmill.Internal(err))
		return
	}
	acct, key, stored, err := s.accountOfToken(r, t)
	if errors.Is(err, docmill.ErrNotFound) {
		s.writeError(w, r, gone) // the account was deleted since the mail
		return
	}
	if err == nil && acct.Suspended() {
		err = errSuspended
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	noteAccount(r.Context(), acct.ID)
	ip := ""
	if a, _, ok := s.clientAddr(r); ok {
		ip = a.String()
	}
	ua := r.UserAgent()
	if len(ua) > 256 {
		ua = ua[:256]
	}
	cookie, sess := docmill.NewSession(acct.ID, ip, ua, now)
	if err := s.cfg.Store.CreateSession(r.Context(), &sess); err != nil {
		s.writeError(w, r, docmill.Internal(err))
		return
	}
	out := map[string]any{
		"account":    map[string]any{"account_id": acct.ID, "email": acct.Email, "name": acct.Name, "plan": acct.Plan},
		"csrf_token": csrfToken(cookie), "expires_at": jobview.Timestamp(sess.ExpiresAt),
	}
	if key != "" {
		out["api_key"], out["key_prefix"] = key, stored.Prefix
		out["note"] = "Store this key now; it is not shown again."
	}
	http.SetCookie(w, newSessionCookie(s.cfg.BaseURL, cookie))
	writeJSON(w, http.StatusCreated, out)
}

// accountOfToken returns the account a used token opens: for a sign-in
// link its account; for a sign-up link a new Free account with its
// first key (the key itself is returned only then), or, when the
// mailbox got an account since the mail went out, that account.
func (s *Server) accountOfToken(r *http.Request, t *docmill.AuthToken) (*docmill.Account, string, docmill.APIKey, error) {
	if t.Purpose != docmill.TokenSignup {
		a, err := s.cfg.Store.Account(r.Context(), t.AccountID)
		return a, "", docmill.APIKey{}, err
	}
	acct := &docmill.Account{Name: t.Name, Email: t.Email, Plan: docmill.PlanFree}
	if acct.Name == "" {
		acct.Name = t.Email
	}
	key, stored, err := docmill.CreateAccount(r.Context(), s.cfg.Store, acct, "first key", s.cfg.Now())
	if errors.Is(err, docmill.ErrEmailTaken) {
		a, err := s.cfg.Store.AccountByEmail(r.Context(), t.Email)
		return a, "", docmill.APIKey{}, err
	}
	if err != nil {
		return nil, "", docmill.APIKey{}, docmill.Internal(err)
	}
	return acct, key, stored, nil
}
