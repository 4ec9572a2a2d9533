package docmill

import (
	"net/mail"
	"strings"
)

// CanonicalEmail returns the mailbox an address delivers to, the form in
// which accounts and sign-up limits compare addresses: the whole address
// in lower case, without the local part's "+tag". Dots are kept, because
// most mail servers deliver "a.b@" and "ab@" to different people; only
// for Gmail, which ignores them, are they removed (and googlemail.com is
// gmail.com). ok is false for anything that is not one plain address.
func CanonicalEmail(addr string) (canonical string, ok bool) {
	addr = strings.TrimSpace(addr)
	if len(addr) > 254 {
		return "", false
	}
	a, err := mail.ParseAddress(addr)
	if err != nil || a.Address != addr || a.Name != "" {
		return "", false
	}
	local, domain, ok := strings.Cut(strings.ToLower(addr), "@")
	if !ok || strings.ContainsAny(local, "\"\\ ") {
		return "", false
	}
	local, _, _ = strings.Cut(local, "+")
	if domain == "googlemail.com" {
		domain = "gmail.com"
	}
	if domain == "gmail.com" {
		local = strings.ReplaceAll(local, ".", "")
	}
	if local == "" || !strings.Contains(domain, ".") {
		return "", false
	}
	return local + "@" + domain, true
}
