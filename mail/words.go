package mail

import (
	"bytes"
	"fmt"
	"html/template"
	texttemplate "text/template"
	"time"

	"github.com/docmill/docmill"
)

// words are one message's texts in one language. Validity holds one %s,
// the link's expiry.
type words struct {
	Subject, Greeting, Intro, Button, Validity, Ignore, Signature string
}

// catalog holds each kind's words by language; "en" is the fallback.
var catalog = map[docmill.MailKind]map[string]words{
	docmill.MailSignup: {
		"en": {
			Subject:   "Confirm your docmill sign-up",
			Greeting:  "Hello,",
			Intro:     "Someone, we hope you, asked to sign up for docmill with this address. Open this link to confirm it and open your account:",
			Button:    "Confirm and sign in",
			Validity:  "The link works once, until %s.",
			Ignore:    "If you did not ask for this, ignore this message: no account is made without the link.",
			Signature: "docmill",
		},
		"ru": {
			Subject:   "Подтвердите регистрацию в docmill",
			Greeting:  "Здравствуйте!",
			Intro:     "Кто-то (надеемся, вы) запросил регистрацию в docmill с этим адресом. Чтобы подтвердить адрес и открыть аккаунт, перейдите по ссылке:",
			Button:    "Подтвердить и войти",
			Validity:  "Ссылка действует один раз, до %s.",
			Ignore:    "Если вы не запрашивали регистрацию, просто не обращайте внимания на это письмо: без ссылки аккаунт не будет создан.",
			Signature: "docmill",
		},
	},
	docmill.MailSignIn: {
		"en": {
			Subject:   "Your docmill sign-in link",
			Greeting:  "Hello,",
			Intro:     "Someone, we hope you, asked to sign in to docmill with this address (or to sign up with it: it already has an account). Open this link to sign in:",
			Button:    "Sign in",
			Validity:  "The link works once, until %s.",
			Ignore:    "If you did not ask for this, ignore this message: nobody can sign in without the link.",
			Signature: "docmill",
		},
		"ru": {
			Subject:   "Ссылка для входа в docmill",
			Greeting:  "Здравствуйте!",
			Intro:     "Кто-то (надеемся, вы) запросил вход в docmill с этим адресом (или регистрацию: у этого адреса уже есть аккаунт). Чтобы войти, перейдите по ссылке:",
			Button:    "Войти",
			Validity:  "Ссылка действует один раз, до %s.",
			Ignore:    "Если вы не запрашивали вход, просто не обращайте внимания на это письмо: без ссылки никто не войдёт.",
			Signature: "docmill",
		},
	},
}

// expiryLayout writes the link's expiry; it is in UTC, which the layout
// says, since a mail cannot know its reader's time zone.
const expiryLayout = "2006-01-02 15:04 MST"

// rendered is a message's subject and bodies.
type rendered struct {
	subject, text, html string
}

// page is what the templates fill in.
type page struct {
	words
	Lang, Link string
}

var textBody = texttemplate.Must(texttemplate.New("text").Parse(`{{.Greeting}}

{{.Intro}}

{{.Link}}

{{.Validity}}
{{.Ignore}}

-- 
{{.Signature}}
`))

// htmlBody escapes every field: the link appears as an attribute and as
// text, and a link that is not http(s) is neutralised by html/template.
var htmlBody = template.Must(template.New("html").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}">
<head><meta charset="utf-8"><title>{{.Subject}}</title></head>
<body style="font-family: sans-serif; line-height: 1.5; color: #222;">
<p>{{.Greeting}}</p>
<p>{{.Intro}}</p>
<p><a href="{{.Link}}" style="display: inline-block; padding: 10px 18px; background: #1f5fbf; color: #fff; text-decoration: none; border-radius: 4px;">{{.Button}}</a></p>
<p style="font-size: 90%; word-break: break-all;">{{.Link}}</p>
<p>{{.Validity}}<br>{{.Ignore}}</p>
<p>-- <br>{{.Signature}}</p>
</body>
</html>
`))

// render writes m in its language ("en" for any but "ru").
func render(m docmill.Mail) (rendered, error) {
	byLang, ok := catalog[m.Kind]
	if !ok {
		return rendered{}, &rejectedError{err: fmt.Errorf("mail: unknown kind %q", m.Kind)}
	}
	lang := "en"
	if m.Lang == "ru" {
		lang = "ru"
	}
	w := byLang[lang]
	w.Validity = fmt.Sprintf(w.Validity, m.Expires.In(time.UTC).Format(expiryLayout))
	p := page{words: w, Lang: lang, Link: m.Link}
	var text, html bytes.Buffer
	if err := textBody.Execute(&text, p); err != nil {
		return rendered{}, err
	}
	if err := htmlBody.Execute(&html, p); err != nil {
		return rendered{}, err
	}
	return rendered{subject: w.Subject, text: text.String(), html: html.String()}, nil
}
