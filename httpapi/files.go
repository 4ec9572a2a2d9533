package httpapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"time"

	"github.com/docmill/docmill"
)

// signature is the URL-safe HMAC-SHA256 of a result's path and expiry.
func (s *Server) signature(jobID, filename string, expires int64) string {
	m := hmac.New(sha256.New, s.cfg.SigningKey)
	fmt.Fprintf(m, "%s\n%s\n%d", jobID, filename, expires)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// fileURL is the signed download address of a result on the CDN URL.
func (s *Server) fileURL(jobID, filename string, expiresAt time.Time) string {
	exp := expiresAt.Unix()
	return fmt.Sprintf("%s/files/%s/%s?expires=%d&signature=%s",
		s.cfg.CDNURL, url.PathEscape(jobID), url.PathEscape(filename), exp, s.signature(jobID, filename, exp))
}

// handleFile serves a result by its signed URL: 403 when the signature does
// not match, 410 once it has expired or the file is gone. The signature is
// the authorization, so the link works without a key, from a CDN's address
// too; it is marked private so that no shared cache keeps a user's file
// after it is deleted. HEAD and Range requests are answered by
// http.ServeContent.
func (s *Server) handleFile(w http.ResponseWriter, r *http.Request) {
	jobID, filename := r.PathValue("job_id"), r.PathValue("filename")
	q := r.URL.Query()
	exp, err := strconv.ParseInt(q.Get("expires"), 10, 64)
	want := s.signature(jobID, filename, exp)
	if err != nil || !hmac.Equal([]byte(want), []byte(q.Get("signature"))) {
		s.writeError(w, r, docmill.Errorf(docmill.CodeForbidden, "The download link is not valid."))
		return
	}
	expiresAt := time.Unix(exp, 0)
	now := s.cfg.Now()
	if !now.Before(expiresAt) {
		s.writeError(w, r, docmill.Errorf(docmill.CodeGone, "The download link expired at %s.", timestamp(expiresAt)))
		return
	}
	key := docmill.ResultKey(jobID, filename)
	attrs, err := s.cfg.Blob.Attributes(r.Context(), key)
	if errors.Is(err, docmill.ErrNotFound) {
		s.writeError(w, r, docmill.Errorf(docmill.CodeGone, "The file has been deleted."))
		return
	}
	if err != nil {
		s.writeError(w, r, docmill.Internal(err))
		return
	}
	rs := newReadSeeker(r.Context(), s.cfg.Blob, key, attrs.Size)
	defer rs.Close()
	h := w.Header()
	// Tools name results by what they are, so the extension decides; a
	// local bucket keeps no content type of its own.
	ct := mime.TypeByExtension(path.Ext(filename))
	if ct == "" {
		ct = attrs.ContentType
	}
	if ct == "" {
		ct = "application/octet-stream"
	}
	h.Set("Content-Type", ct)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": filename}))
	h.Set("Cache-Control", fmt.Sprintf("private, max-age=%d", int(expiresAt.Sub(now).Seconds())))
	h.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, "", attrs.ModTime, rs)
}
