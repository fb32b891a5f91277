// Package embedded holds the trusted-documents manifest built into a binary by
// `make lambda MANIFEST=path`: the Makefile checks that file, copies it here as
// manifest.json (gitignored) and builds with the tag pickem_manifest. A binary built
// without the tag has none.
package embedded

// Tag is the build tag that embeds manifest.json.
const Tag = "pickem_manifest"

// Manifest returns the manifest built into the binary, or nil when it has none.
func Manifest() []byte { return manifest }
