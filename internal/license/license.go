// SPDX-License-Identifier: Apache-2.0

// Package license names the project's license, once: the SPDX line every
// source file carries and that the generators write into the files they
// make (the RTL package and wrappers, the testbench header).
package license

// Line is the license line of every source file.
const Line = "SPDX-License-Identifier: Apache-2.0"
