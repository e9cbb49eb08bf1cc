# strip.awk: turns ikdasm's output into mini MSIL without changing any
# method body's instructions:
# - it drops the MVID comment (it changes on every build), .custom
#   attributes (which may span lines), .property and .event blocks
#   (metadata only: their accessor methods stay), and the literal fields of
#   C# constants (their uses are already inlined);
# - it puts back the "class" ikdasm leaves out before the types of other
#   assemblies in signatures ([mscorlib]System.Exception), which ilasm
#   would miscompile;
# - System.IDisposable, not in mini MSIL's base library yet, becomes the
#   interface IDisposable declared at the end, with the same Dispose method;
# - a .try with a filter and other handlers is rewritten from the scoped
#   form to the label form (the same clauses, in the same order), because
#   Mono's ilasm writes a broken image for the scoped form of such a try;
# - ToString on a primitive through "constrained." (mcs) becomes the direct
#   call Roslyn emits (call instance string System.Int32::ToString()).
function parens(s,    t) {
	t = s
	return gsub(/\(/, "", t) - gsub(/\)/, "", s)
}
/^\/\/ MVID:/ { next }
/^\/\/ Metadata version/ { next }
/^\/\/ \*+ DISASSEMBLY COMPLETE/ { next }
depth > 0 { depth += parens($0); next }
/^[ \t]*\.custom / { depth = parens($0); next }
/^[ \t]*\.(property|event) / { skip = 1; next }
skip && /^[ \t]*} \/\/ end of (property|event)/ { skip = 0; next }
skip { next }
/^[ \t]*\.field .* literal / { next }
# classes puts "class" before each type reference to another assembly
# that ikdasm writes without it in a signature (a field's, a method's or a
# local's type), leaving alone the type tokens of instructions (newarr,
# box, catch, ...) and the classes that own a member (T::M).
function classes(s,    out, pre, word, rest) {
	out = ""
	while (match(s, /\[[A-Za-z][A-Za-z0-9.]*\][A-Za-z_][A-Za-z0-9_.]*/)) {
		pre = substr(s, 1, RSTART - 1)
		rest = substr(s, RSTART + RLENGTH)
		word = pre
		sub(/[ \t]+$/, "", word)
		sub(/.*[ \t(,]/, "", word)
		if (rest !~ /^(\[\])*::/ && word !~ /^(class|valuetype|newarr|box|unbox|unbox\.any|isinst|castclass|catch|extends|implements|initobj|sizeof|ldobj|stobj|cpobj|ldelem|stelem|ldelema|mkrefany|refanyval|constrained\.)$/)
			pre = pre "class "
		out = out pre substr(s, RSTART, RLENGTH)
		s = rest
	}
	return out s
}
{
	# (string literals are left alone)
	q = index($0, "\"")
	if (q)
		$0 = classes(substr($0, 1, q - 1)) substr($0, q)
	else
		$0 = classes($0)
	if (gsub(/\[mscorlib\]System\.IDisposable/, "IDisposable"))
		disposable = 1
	line[++n] = $0
}

# label returns the IL label of the first instruction at or after line i,
# or "" at the end of the method.
function label(i) {
	for (; i <= n; i++) {
		if (match(line[i], /^[ \t]*IL_[0-9a-f]+:/)) {
			s = substr(line[i], RSTART, RLENGTH - 1)
			sub(/^[ \t]*/, "", s)
			return s
		}
		if (line[i] ~ /\/\/ end of method/)
			return ""
	}
	return ""
}

function header(s) {
	return s ~ /^[ \t]*(filter|finally|fault|catch .*)[ \t]*$/ || s ~ /^[ \t]*\{[ \t]*\/\/ handler/
}

# finish closes construct c, whose text ends before line i.
function finish(c, i) {
	cend[c] = i
}

END {
	# Find every scoped construct: a .try and its handlers (parts).
	nc = 0; sp = 0; pending = 0
	for (i = 1; i <= n; i++) {
		s = line[i]
		if (pending && s !~ /^[ \t]*$/) {
			if (header(s)) {
				k = ++np[pending]
				phead[pending, k] = i
				if (s ~ /\/\/ handler/) {
					popen[pending, k] = i
					stack[++sp] = pending SUBSEP k
				}
				if (s ~ /^[ \t]*filter/)
					hasfilter[pending] = 1
				pending = 0
				continue
			}
			finish(pending, i)
			pending = 0
		}
		if (s ~ /^[ \t]*\.try[ \t]*$/) {
			c = ++nc
			np[c] = 1
			phead[c, 1] = i
			continue
		}
		if (s ~ /^[ \t]*\{[ \t]*$/ && nc > 0 && popen[nc, np[nc]] == "" && phead[nc, np[nc]] != "" && cend[nc] == "") {
			# the opening brace of the newest construct's newest part
			popen[nc, np[nc]] = i
			stack[++sp] = nc SUBSEP np[nc]
			continue
		}
		if (s ~ /^[ \t]*\}[ \t]*\/\/ end (\.try|filter|handler)/) {
			split(stack[sp--], f, SUBSEP)
			pclose[f[1], f[2]] = i
			pending = f[1]
			continue
		}
	}
	if (pending)
		finish(pending, n + 1)

	# Rewrite the constructs that have a filter and more than one handler.
	nl = 0
	for (c = 1; c <= nc; c++) {
		if (!hasfilter[c] || np[c] < 4)
			continue
		for (k = 1; k <= np[c]; k++) {
			drop[phead[c, k]] = 1
			drop[popen[c, k]] = 1
			drop[pclose[c, k]] = 1
			start[k] = label(popen[c, k])
		}
		endl = label(cend[c])
		if (endl == "") {
			endl = "CS_END_" c
			endlabel[cend[c]] = endl
		}
		start[np[c] + 1] = endl
		# One directive per handler: Mono's ilasm loses the filter of a
		# directive that lists several handlers.
		t = "    .try " start[1] " to " start[2]
		d = ""
		for (k = 2; k <= np[c]; k++) {
			h = line[phead[c, k]]
			sub(/^[ \t]*/, "", h)
			sub(/[ \t]*$/, "", h)
			if (h ~ /^filter/) {
				d = d t " filter " start[k] " handler " start[k + 1] " to " start[k + 2] "\n"
				k++
				continue
			}
			d = d t " " h " handler " start[k] " to " start[k + 1] "\n"
		}
		directive[cend[c]] = directive[cend[c]] d
	}
	# mcs calls ToString on a primitive local through constrained.;
	# Roslyn calls the type's own method on the address, which is what
	# mini MSIL takes: rewrite the pair into that call.
	prim = "System\\.(Int32|Int64|UInt32|UInt64|Int16|UInt16|Byte|SByte|Double|Single|Boolean|Char)"
	rewrites = 0
	for (i = 1; i < n; i++) {
		if (match(line[i], "constrained\\. +\\[mscorlib\\]" prim "[ \t]*$") && line[i + 1] ~ /callvirt +instance string \[mscorlib\]System\.Object::ToString\(\)/) {
			t = substr(line[i], RSTART, RLENGTH)
			sub(/constrained\. +/, "", t)
			sub(/[ \t]*$/, "", t)
			line[i] = substr(line[i], 1, RSTART - 1) "call       instance string " t "::ToString()"
			drop[i + 1] = 1
			rewrites++
		}
	}
	if (rewrites)
		print "// ToString of a primitive: mcs emits constrained. + callvirt Object::ToString(),\n// rewritten here into the call Roslyn emits (call instance string System.Int32::ToString())."
	for (i = 1; i <= n + 1; i++) {
		if (i in endlabel)
			print "    " endlabel[i] ":"
		if (i in directive)
			printf "%s", directive[i]
		if (i <= n && !(i in drop))
			print line[i]
	}
	if (disposable) {
		print ""
		print "// C#'s using statement calls System.IDisposable::Dispose; this interface"
		print "// stands in for it (mini MSIL has no System.IDisposable yet)."
		print ".class interface public auto ansi abstract IDisposable"
		print "{"
		print "  .method public hidebysig newslot abstract virtual instance void Dispose() cil managed"
		print "  {"
		print "  }"
		print "}"
	}
}
