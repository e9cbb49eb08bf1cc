#!/bin/sh
# build.sh NAME.cs ... : compiles each C# program with mcs, disassembles it
# with ikdasm and writes ../corpus/cs_NAME.il, keeping the IL as the compiler
# emitted it and removing only what mini MSIL does not accept (see README.md).
# The golden ../corpus/cs_NAME.out is Mono's output of that .il, then exit=N.
# It then checks that miniil accepts the .il. Options: -o DIR writes the
# .il and .out into DIR instead; -nocheck skips the miniil check (for
# programs that need what miniil does not have yet). A program whose first
# line is "// mcs: -debug" is compiled without -optimize+.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../corpus"
check=1
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	-nocheck) check=0; shift ;;
	*) break ;;
	esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $check = 1 ]; then
	(cd "$here" && go build -o "$tmp/miniil" ../../cmd/miniil)
fi
for src in "$@"; do
	name=cs_$(basename "$src" .cs)
	opt=-optimize+
	if head -1 "$src" | grep -q '^// mcs: -debug'; then
		opt=-optimize-
	fi
	mcs -nologo "$opt" -warn:0 "$src" -out:"$tmp/$name.exe"
	ikdasm "$tmp/$name.exe" >"$tmp/$name.raw"
	if grep -n 'PrivateImplementationDetails\|\.override\|ldtoken\|bytearray' "$tmp/$name.raw"; then
		echo "$src: the IL uses what mini MSIL does not have (above)" >&2
		exit 1
	fi
	{
		echo "// $name: compiled from tests/cssrc/$(basename "$src") by tests/cssrc/build.sh"
		echo "// (mcs $opt, ikdasm); only metadata mini MSIL does not accept is removed."
		sed -n '/^\/\/ /!q; s/^\/\/ mcs: .*//; /^$/d; p' "$src"
		awk -f "$here/strip.awk" "$tmp/$name.raw"
	} >"$out/$name.il"
	# The C# program and its IL must print the same on Mono.
	mono "$tmp/$name.exe" >"$tmp/exe.out" && rc=0 || rc=$?
	echo "exit=$rc" >>"$tmp/exe.out"
	ilasm "$out/$name.il" -output:"$tmp/il.exe" >/dev/null
	mono "$tmp/il.exe" >"$out/$name.out" && rc=0 || rc=$?
	echo "exit=$rc" >>"$out/$name.out"
	if ! cmp -s "$tmp/exe.out" "$out/$name.out"; then
		echo "$src: the rewritten IL prints differently from the compiled program" >&2
		diff "$tmp/exe.out" "$out/$name.out" >&2 || true
		exit 1
	fi
	if [ $check = 1 ]; then
		"$tmp/miniil" check "$out/$name.il"
	fi
	echo "$out/$name.il: $(wc -l <"$out/$name.il") lines, $(tail -1 "$out/$name.out")"
done
