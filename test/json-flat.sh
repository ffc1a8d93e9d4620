# test/json-flat.sh: sourced by the CLI tests (cli_json.sh, cli_history.sh):
# json_flat FILE prints one JSON object as "key=value" lines: scalars as
# they are (booleans true / false), an object member's members as
# "key.member=value", an array as "key_length=N" and its elements as
# "key.i=value" or "key.i.member=value"; a non-zero exit when FILE is not
# one JSON object. python3, else perl's JSON::PP (part of Debian's perl);
# exit 77 (skip) with neither. field KEY FLATFILE prints KEY's value.
if command -v python3 > /dev/null 2>&1; then
  json_flat() {
    python3 -c '
import json, sys
def s(v): return ("true" if v else "false") if isinstance(v, bool) else "%s" % v
d = json.load(open(sys.argv[1]))
assert isinstance(d, dict), "not an object"
for k, v in d.items():
    if isinstance(v, list):
        print("%s_length=%d" % (k, len(v)))
        for i, e in enumerate(v):
            if isinstance(e, dict):
                for kk, vv in e.items(): print("%s.%d.%s=%s" % (k, i, kk, s(vv)))
            else: print("%s.%d=%r" % (k, i, e))
    elif isinstance(v, dict):
        for kk, vv in v.items(): print("%s.%s=%s" % (k, kk, s(vv)))
    else: print("%s=%s" % (k, s(v)))' "$1"
  }
elif perl -MJSON::PP -e 1 > /dev/null 2>&1; then
  json_flat() {
    perl -MJSON::PP -e '
sub sv { my $v = shift; JSON::PP::is_bool($v) ? ($v ? "true" : "false") : $v }
local $/; open(my $f, "<", $ARGV[0]) or die; my $d = JSON::PP->new->decode(<$f>);
ref $d eq "HASH" or die "not an object";
for my $k (keys %$d) {
  my $v = $d->{$k};
  if (ref $v eq "ARRAY") {
    printf "%s_length=%d\n", $k, scalar @$v;
    for my $i (0 .. $#$v) {
      my $e = $v->[$i];
      if (ref $e eq "HASH") { print "$k.$i.$_=" . sv($e->{$_}) . "\n" for keys %$e } else { print "$k.$i=$e\n" } } }
  elsif (ref $v eq "HASH") { print "$k.$_=" . sv($v->{$_}) . "\n" for keys %$v }
  else { print "$k=" . sv($v) . "\n" } }' "$1"
  }
else
  echo "SKIP: neither python3 nor perl's JSON::PP to read JSON"; exit 77
fi
field() { sed -n "s/^$1=//p" "$2"; }
