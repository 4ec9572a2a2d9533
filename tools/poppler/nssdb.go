package poppler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// keyDB is a throw-away NSS database in a job's directory, with an empty
// database password: pdfsig reads signatures with one (it holds no keys
// and no trust anchors, so every certificate's issuer is unknown).
type keyDB struct{ dir string }

// spec names the database as NSS programs take it (the SQLite format).
func (k keyDB) spec() string { return "sql:" + k.dir }

// newKeyDB makes an empty NSS database in workDir.
func newKeyDB(ctx context.Context, certutil *sandbox.Engine, workDir string) (keyDB, error) {
	db := keyDB{dir: filepath.Join(workDir, "nssdb")}
	if err := os.Mkdir(db.dir, 0o700); err != nil {
		return db, fmt.Errorf("poppler: key database: %w", err)
	}
	if _, err := certutil.Run(ctx, sandbox.Cmd{Args: []string{"-N", "--empty-password", "-d", db.spec()}, Dir: workDir}); err != nil {
		return db, docmill.Internal(fmt.Errorf("poppler: certutil -N: %w", err))
	}
	return db, nil
}
