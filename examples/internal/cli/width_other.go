//go:build !(linux || darwin)

package cli

import "os"

// termWidth is 0 (unknown) where the width is not asked for.
func termWidth(*os.File) int { return 0 }
