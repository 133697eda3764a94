// SPDX-License-Identifier: Apache-2.0

// Package e2e runs the ibreservoir command as its users do, from outside:
//
//   - TestDocumentedCommands clones the repository into a temporary
//     directory and runs, at the clone's root and with the relative paths the
//     documentation uses, every command that README.md and docs/*.md show,
//     either as written or in the reduced form declared for it in one table
//     (docs_test.go). A documented command with neither, or a flag the
//     documentation names that the command does not have, fails the test.
//   - TestHostile (run by scripts/hostile.sh) throws bad input at every
//     command: crafted and truncated captures, bad numbers, interrupts,
//     corrupt files, and checks that each ends in a clear error or a correct
//     result, with no panic, hang, silent pass, half-written output or
//     unbounded memory. Its cases and their expected outcomes are one table
//     (hostile_test.go).
//
// The package has no code of its own besides the helpers the tests share.
package e2e
