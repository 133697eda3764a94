// SPDX-License-Identifier: Apache-2.0

package vectors

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"ibreservoir/internal/lock"
)

// A vector directory (the --out of `ibreservoir vectors`) is a unit: its
// sets, their manifests and index.json always agree. A run writes into a
// staging directory beside it, .<name>.staging-<pid>, that starts as a
// hard-linked copy of the directory (so the sets the run does not rewrite
// stay, byte for byte, at no cost in disk space), and Commit swaps the
// staging directory in with one atomic rename (Linux renameat2
// RENAME_EXCHANGE). A run that fails, is interrupted or is killed leaves the
// directory as it was; the next run, holding the directory's lock (a
// flock of the directory that holds it, which leaves no file), removes the
// temporaries a killed run left.

// An OutDir is a vector directory being rewritten.
type OutDir struct {
	Root    string // absolute path
	staging string
	unlock  func()
	done    bool
	// Stale counts the temporaries of interrupted earlier runs that
	// OpenOutDir removed.
	Stale int
}

// IndexName is the file that lists every set of a vector directory.
const IndexName = "index.json"

// OpenOutDir locks the vector directory root (created at Commit if it does
// not exist), removes what interrupted runs left, and prepares the staging
// directory. It refuses a root that holds anything but vector sets.
func OpenOutDir(root string) (*OutDir, error) {
	if root == "" {
		return nil, errors.New("vector directory: the name is empty: give a directory (the run replaces it whole)")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	if parent == abs {
		return nil, fmt.Errorf("vector directory %s: a file system's root cannot be replaced: give a directory inside it", abs)
	}
	if err := checkNotWorkingDir(abs); err != nil {
		return nil, fmt.Errorf("vector directory %s: %w", abs, err)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lock.Parent(parent, "vector directory "+abs)
	if err != nil {
		return nil, err
	}
	o := &OutDir{Root: abs, unlock: unlock, staging: filepath.Join(parent, fmt.Sprintf(".%s.staging-%d", base, os.Getpid()))}
	if err := o.open(parent, base); err != nil {
		o.Abort()
		return nil, fmt.Errorf("vector directory %s: %w", abs, err)
	}
	return o, nil
}

func (o *OutDir) open(parent, base string) error {
	// What interrupted runs left: staging directories, and a directory moved
	// aside by a swap without RENAME_EXCHANGE, put back if the new one never
	// arrived.
	ents, err := os.ReadDir(parent)
	if err != nil {
		return err
	}
	_, rootErr := os.Lstat(o.Root)
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasPrefix(n, "."+base+".old-") && errors.Is(rootErr, fs.ErrNotExist):
			if err := os.Rename(filepath.Join(parent, n), o.Root); err != nil {
				return err
			}
			rootErr = nil
			o.Stale++
		case strings.HasPrefix(n, "."+base+".staging-"), strings.HasPrefix(n, "."+base+".old-"):
			if err := os.RemoveAll(filepath.Join(parent, n)); err != nil {
				return err
			}
			o.Stale++
		}
	}
	if err := os.Mkdir(o.staging, 0o755); err != nil {
		return err
	}
	if errors.Is(rootErr, fs.ErrNotExist) {
		return nil
	}
	if rootErr != nil {
		return rootErr
	}
	if err := checkVectorDir(o.Root); err != nil {
		return err
	}
	return o.linkTree()
}

// checkNotWorkingDir refuses a root that is the current directory or holds
// it, however it is named (".", "./", its absolute path, a path through a
// symbolic link to one of its parents): the run swaps the root for a new
// directory and removes the old one, which would take the working directory
// of this process, and of the shell that started it, with it.
func checkNotWorkingDir(abs string) error {
	rst, err := os.Lstat(abs)
	if err != nil || !rst.IsDir() {
		return nil // a new root, or one OpenOutDir refuses for what it is
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	for d := wd; ; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && os.SameFile(st, rst) {
			if d == wd {
				return errors.New("is the current directory, which the run would replace whole: give a directory inside it, e.g. --out vectors")
			}
			return fmt.Errorf("holds the current directory %s, which the run would remove with it: give a directory that does not hold it", wd)
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// checkVectorDir refuses a root that is not a directory, or that holds
// files but no index.json (it is not a vector directory: the swap would
// remove them).
func checkVectorDir(root string) error {
	st, err := os.Lstat(root)
	if err != nil {
		return err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("is a symbolic link: give the directory it points to (the run replaces the directory itself)")
	}
	if !st.IsDir() {
		return fmt.Errorf("not a directory")
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	if len(ents) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(root, IndexName)); err != nil {
		return fmt.Errorf("holds files but no %s, so it is not a vector directory (its files would be replaced): choose an empty or new directory", IndexName)
	}
	return nil
}

// isTemp reports whether a file name is a temporary of package atomicfile
// (.<name>.tmp<digits>), which earlier versions wrote inside the sets.
func isTemp(name string) bool { return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp") }

// linkTree fills the staging directory with hard links to root's files.
func (o *OutDir) linkTree() error {
	return filepath.WalkDir(o.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(o.Root, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(o.staging, rel)
		switch {
		case d.IsDir():
			if rel == "." {
				return nil
			}
			return os.Mkdir(dst, 0o755)
		case isTemp(d.Name()):
			o.Stale++
			return nil
		case rel == IndexName:
			return nil // Commit writes a new one
		case !d.Type().IsRegular():
			return fmt.Errorf("%s is not a regular file", path)
		}
		if err := os.Link(path, dst); err != nil {
			return copyFile(path, dst)
		}
		return nil
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Staging is the directory the run writes its sets into.
func (o *OutDir) Staging() string { return o.staging }

// Clear removes set kind/name from the staging directory (a set the run is
// about to rewrite; the links go, root's files stay).
func (o *OutDir) Clear(kind, name string) error {
	return os.RemoveAll(filepath.Join(o.staging, kind, name))
}

// CheckSpace refuses a run whose files (an estimate of at most need bytes)
// would not fit the free space of the directory's file system.
func (o *OutDir) CheckSpace(need int64) error {
	free, ok := freeBytes(filepath.Dir(o.Root))
	if ok && need > free {
		return fmt.Errorf("the run writes up to %s into %s, but only %s are free there: write fewer vectors or choose another --out", sizeString(need), o.Root, sizeString(free))
	}
	return nil
}

func sizeString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Commit writes index.json, listing every set of the staging directory, and
// swaps the staging directory in for root.
func (o *OutDir) Commit(version string) (*Index, error) {
	idx, err := buildIndex(o.staging, version)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return nil, err
	}
	fs, err := createAll(o.staging, IndexName)
	if err != nil {
		return nil, err
	}
	if _, err := fs[0].Write(append(b, '\n')); err != nil {
		fs.close()
		return nil, err
	}
	if _, err := fs.finish(); err != nil {
		return nil, err
	}
	if err := o.swap(); err != nil {
		return nil, err
	}
	return idx, nil
}

// swap puts the staging directory in root's place.
func (o *OutDir) swap() error {
	if _, err := os.Lstat(o.Root); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(o.staging, o.Root); err != nil {
			return err
		}
		o.finish()
		return nil
	}
	if exchanged, err := exchange(o.staging, o.Root); err != nil {
		return err
	} else if !exchanged {
		// Two renames; a run killed between them leaves root missing and
		// the old directory aside, which the next OpenOutDir puts back.
		old := filepath.Join(filepath.Dir(o.Root), fmt.Sprintf(".%s.old-%d", filepath.Base(o.Root), os.Getpid()))
		if err := os.Rename(o.Root, old); err != nil {
			return err
		}
		if err := os.Rename(o.staging, o.Root); err != nil {
			os.Rename(old, o.Root)
			return err
		}
		o.staging = old
	}
	// The staging path now holds the old directory.
	o.finish()
	return nil
}

// finish removes what the staging path holds (after a swap, the old
// directory) and releases the lock.
func (o *OutDir) finish() {
	if o.done {
		return
	}
	o.done = true
	os.RemoveAll(o.staging)
	o.unlock()
}

// Abort discards the staging directory and releases the lock, leaving root
// as it was. It does nothing after Commit, so `defer o.Abort()` covers every
// early return.
func (o *OutDir) Abort() { o.finish() }

// Index is index.json: every set of a vector directory and its files.
type Index struct {
	Tool    string       `json:"tool"`
	Version string       `json:"version"`
	Sets    []IndexEntry `json:"sets"`
}

// An IndexEntry is one set of an Index.
type IndexEntry struct {
	Kind         string     `json:"kind"`
	Name         string     `json:"name"`
	Seed         uint64     `json:"seed"`
	ConfigDigest string     `json:"config_digest,omitempty"`
	Files        []FileHash `json:"files"`
	// Manifest is the set's manifest.json: its size and SHA-256, so that an
	// edited manifest disagrees with the index.
	Manifest FileHash `json:"manifest"`
}

// kinds are the set kinds in the order index.json lists them.
var kinds = []string{KindStage, KindPath, KindBulk}

// buildIndex lists every set under dir from its manifest.
func buildIndex(dir, version string) (*Index, error) {
	idx := &Index{Tool: "ibreservoir", Version: version, Sets: []IndexEntry{}}
	for _, k := range kinds {
		ents, err := os.ReadDir(filepath.Join(dir, k))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
		for _, e := range ents {
			m, err := ReadManifest(filepath.Join(dir, k, e.Name()))
			if err != nil {
				return nil, err
			}
			mh, err := hashFile(filepath.Join(dir, k, e.Name()), ManifestName)
			if err != nil {
				return nil, err
			}
			idx.Sets = append(idx.Sets, IndexEntry{Kind: m.Kind, Name: m.Name, Seed: m.Seed, ConfigDigest: m.ConfigDigest, Files: m.Files, Manifest: mh})
		}
	}
	return idx, nil
}

// ReadManifest reads the manifest of the set in dir.
func ReadManifest(dir string) (*Manifest, error) {
	var m Manifest
	return &m, readJSON(filepath.Join(dir, ManifestName), &m)
}

// ReadIndex reads the index.json of vector directory root.
func ReadIndex(root string) (*Index, error) {
	var idx Index
	return &idx, readJSON(filepath.Join(root, IndexName), &idx)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// CheckSet checks that the set in dir is whole and is the one its vector
// directory lists: the set sits at root/<kind>/<name> as its manifest names
// it, root's index.json lists it with the SHA-256 of its manifest.json (so
// an edited manifest is refused) and the same files, and every file the
// manifest lists has the recorded size and SHA-256. It returns the manifest.
// What the manifest says of the vectors is checked against the model by
// RecheckStage.
func CheckSet(dir string) (*Manifest, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return m, err
	}
	kind, name, root := filepath.Base(filepath.Dir(abs)), filepath.Base(abs), filepath.Dir(filepath.Dir(abs))
	if kind != m.Kind || name != m.Name {
		return m, fmt.Errorf("%s names set %s/%s, but it is in %s/%s: a set is checked where ibreservoir vectors wrote it, in its vector directory", filepath.Join(dir, ManifestName), m.Kind, m.Name, kind, name)
	}
	idx, err := ReadIndex(root)
	if errors.Is(err, fs.ErrNotExist) {
		return m, fmt.Errorf("%s: no %s in %s, so the set's manifest cannot be checked: co-simulate a set where ibreservoir vectors wrote it, or write it again", dir, IndexName, root)
	}
	if err != nil {
		return m, err
	}
	var e *IndexEntry
	for i := range idx.Sets {
		if idx.Sets[i].Kind == m.Kind && idx.Sets[i].Name == m.Name {
			e = &idx.Sets[i]
		}
	}
	if e == nil {
		return m, fmt.Errorf("%s does not list set %s/%s", filepath.Join(root, IndexName), m.Kind, m.Name)
	}
	if e.Manifest.SHA256 == "" {
		return m, fmt.Errorf("%s lists set %s/%s without the SHA-256 of its manifest: the directory was written by an older ibreservoir; write it again with ibreservoir vectors", filepath.Join(root, IndexName), m.Kind, m.Name)
	}
	mh, err := hashFile(dir, ManifestName)
	if err != nil {
		return m, err
	}
	if mh != e.Manifest {
		return m, fmt.Errorf("%s has SHA-256 %s (%d bytes), %s says %s (%d bytes): the manifest was changed after the directory was written", filepath.Join(dir, ManifestName), mh.SHA256, mh.Bytes, filepath.Join(root, IndexName), e.Manifest.SHA256, e.Manifest.Bytes)
	}
	if e.Seed != m.Seed || e.ConfigDigest != m.ConfigDigest || !slices.Equal(e.Files, m.Files) {
		return m, fmt.Errorf("%s disagrees with %s about set %s/%s: the directory was not written as one unit", filepath.Join(dir, ManifestName), filepath.Join(root, IndexName), m.Kind, m.Name)
	}
	for _, f := range m.Files {
		h, err := hashFile(dir, f.Name)
		if err != nil {
			return m, err
		}
		p := filepath.Join(dir, f.Name)
		if h.Bytes != f.Bytes {
			return m, fmt.Errorf("%s is %d bytes, its manifest says %d: the set is not the one the manifest describes", p, h.Bytes, f.Bytes)
		}
		if h.SHA256 != f.SHA256 {
			return m, fmt.Errorf("%s has SHA-256 %s, its manifest says %s: the set is not the one the manifest describes", p, h.SHA256, f.SHA256)
		}
	}
	return m, nil
}

// hashFile is the size and SHA-256 of file name in dir.
func hashFile(dir, name string) (FileHash, error) {
	p := filepath.Join(dir, name)
	if name != filepath.Base(name) || name == "." || name == ".." {
		return FileHash{}, fmt.Errorf("%s: a file of a set is named by its name alone, not %q", dir, name)
	}
	st, err := os.Stat(p)
	if err != nil {
		return FileHash{}, err
	}
	sum, err := fileSHA256(p)
	if err != nil {
		return FileHash{}, err
	}
	return FileHash{Name: name, Bytes: int(st.Size()), SHA256: sum}, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
