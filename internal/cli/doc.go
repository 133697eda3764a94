// SPDX-License-Identifier: Apache-2.0

// Package cli is the command line's shared vocabulary: the typed flag values
// every ibreservoir command binds (one parser and one range check per kind of
// value), flag suggestions for mistyped names, the check that refuses a flag
// with no effect in the chosen mode, output-format selection with Markdown and
// JSON renderings, output-path checks made before any work, and the signal
// handling that turns SIGINT and SIGTERM into a clean stop.
//
// The vocabulary, the same in every command:
//
//	--generator NAME       one switch generator (package rng's names);
//	                       --generators A,B where a command takes a list
//	--hash NAME            one hash of thesis section 5.4; --hashes for a list
//	--count-bits B         the width b of the saturating hop count
//	--seed N               the run seed every random choice derives from
//	--format F             what a command prints on standard output:
//	                       text (default), markdown or json
//	--out PATH             the file or directory of a command's main product
//	--json PATH, --report DIR
//	                       further files written beside it (a flag named after
//	                       a format always takes a path)
//
// Numbers are checked when the flag is parsed: a NaN, an infinity, a negative
// count or a value outside the flag's range is a usage error naming the flag,
// before the command starts.
package cli
