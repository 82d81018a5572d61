#!/usr/bin/env bash
# docs/agents.md's recipes are what make check-agents runs
# (tests/agents/harness.py reads them): each one the harness uses is there,
# parses as what it is, names cordon where the harness looks for it, and
# docs/agents.ja.md holds the same blocks byte for byte, the untested ones
# too, and the same inline code; the policy recipe loads (cordon options
# --policy).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY (the harness's language)"
[ -f "$TOP/docs/agents.md" ] || skip_all "no docs/agents.md in this copy of the tree"

out=$("$PY" - "$TOP" "$T/agent.policy" <<'EOF' 2>&1
import ast, json, os, sys, tomllib
top, policy = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(top, "tests", "agents"))
import harness as h
n = 0
def ok(cond, name):
    global n
    n += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, name))
en = h.recipes(os.path.join(top, "docs", "agents.md"))
ja = h.recipes(os.path.join(top, "docs", "agents.ja.md"))
used = {"agent-policy": "policy", "claude-prefix": "json", "claude-hook": "json",
        "codex-config": "toml", "codex-hooks": "json", "codex-trust": "python",
        "gemini-hook": "json", "gemini-base-url": "json"}
for name, kind in sorted(used.items()):
    text = en.get(name)
    ok(text is not None, "recipe %s is in docs/agents.md" % name)
    if text is None:
        continue
    try:
        if kind == "json":
            json.loads(text)
        elif kind == "toml":
            tomllib.loads(text)
        elif kind == "python":
            ast.parse(text)
        good = True
    except Exception as e:
        print("#   %s" % e)
        good = False
    ok(good, "... and parses as %s" % kind)
    ok(ja.get(name) == text, "... docs/agents.ja.md has the same block")
ok(sorted(en) == sorted(ja), "the two files hold the same recipes (%s)" %
   " ".join(sorted(en)))
for name, want in (("claude-prefix", "/usr/local/bin/cordon-sh"),
                   ("claude-hook", "/usr/local/bin/cordon hook claude"),
                   ("codex-hooks", "/usr/local/bin/cordon hook codex"),
                   ("gemini-hook", "/usr/local/bin/cordon hook gemini")):
    ok(want in en.get(name, ""), "%s names %s (the harness puts its build "
       "there)" % (name, want))
    ok(h.INSTALLED not in h.recipe(name, "/b/"), "... which it replaces")
import re
from collections import Counter
def blocks_and_spans(path):
    # Every fenced block, and every inline code span, its blanks folded
    # (agents.md wraps lines inside a span).
    with open(path) as f:
        text = f.read()
    fenced = re.findall(r"^```[^\n]*\n.*?^```$", text, re.M | re.S)
    prose = re.sub(r"^```[^\n]*\n.*?^```$", "", text, flags=re.M | re.S)
    spans = Counter(re.sub(r"\s+", " ", m.group(2).strip())
                    for m in re.finditer(r"(`+)(.+?)\1", prose, re.S))
    return fenced, spans
fen, sen = blocks_and_spans(os.path.join(top, "docs", "agents.md"))
fja, sja = blocks_and_spans(os.path.join(top, "docs", "agents.ja.md"))
ok(fen == fja, "docs/agents.ja.md has every fenced block of agents.md, the "
   "untested recipes too (%d), in the same order" % len(fen))
for k, v in sorted((sen - sja).items()):
    print("#   only in agents.md: %r x%d" % (k, v))
for k, v in sorted((sja - sen).items()):
    print("#   only in agents.ja.md: %r x%d" % (k, v))
ok(sen == sja, "... and the same inline code (%d spans): commands, "
   "settings and names as in agents.md" % sum(sen.values()))
with open(policy, "w") as f:
    f.write(en.get("agent-policy", ""))
print("1..%d" % n)
EOF
)
echo "$out" | sed '/^1\.\./d'
n=$(echo "$out" | sed -n 's/^1\.\.\([0-9]*\)$/\1/p')
[ -n "$n" ] || {
	echo "not ok 1 - the recipes were read"
	echo "1..1"
	exit 1
}
tap_n=$n
tap_fail=$(echo "$out" | grep -c "^not ok")
"$CORDON" options --policy "$T/agent.policy" >/dev/null
ok $? "the agent-policy recipe loads (cordon options --policy)"
done_testing
