//go:build pickem_manifest

package embedded

import _ "embed"

//go:embed manifest.json
var manifest []byte
