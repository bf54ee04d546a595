# Overrides keys of a TOML config: awk -v set="table.key=value ..." -f config-set.awk FILE.
# Each `key = ...` line of [table] whose table.key is given becomes `key = value` (value as
# written, e.g. 12 or "burn"); every other line passes unchanged. Used by gpu-check.sh
# (RUN_SET) and gpu-judge.sh (TRAINER_SET); gpu-bundle.sh copies it beside gpu-check.sh.
BEGIN { n = split(set, items, " "); for (i = 1; i <= n; i++) { split(items[i], kv, "="); value[kv[1]] = kv[2] } }
/^\[/ { table = substr($0, 2, index($0, "]") - 2) }
{ key = $1; if ((table "." key) in value && $2 == "=") { print key " = " value[table "." key]; next } print }
