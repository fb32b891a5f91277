//go:build !pickem_manifest

package embedded

var manifest []byte
