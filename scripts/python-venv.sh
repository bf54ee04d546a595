# Sourced by scripts that keep a tool in a Python venv (check-deploy.sh, s3-server.sh).
# venv_python: prints a python3 that can create venvs, installing Debian's python3-venv
# with apt first where the module or ensurepip is missing (we run as root).
venv_python() {
    if python3 -c 'import venv, ensurepip' 2>/dev/null; then
        echo python3
        return
    fi
    echo "installing python3-venv (apt)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq python3-venv >/dev/null
    echo /usr/bin/python3 # Debian's, which python3-venv completes
}

# cached_venv NAME CHECK PACKAGE...: makes (once) a venv NAME under the tengu cache
# (${TENGU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tengu}) holding the pinned PACKAGEs, and
# prints its path. CHECK, a shell command run with $VENV set to the venv, must succeed in
# it (an import, a program that runs). Two callers (parallel tests) installing at once
# never share a half-built venv: the install holds a lock. Returns 2 (with a message on
# standard error) when the venv cannot be made, e.g. PyPI is not reachable.
cached_venv() {
    local name=$1 check=$2
    shift 2
    local cache="${TENGU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tengu}"
    local venv="$cache/$name"
    if [ ! -f "$venv/.installed" ]; then
        mkdir -p "$cache"
        (
            flock 9
            if [ ! -f "$venv/.installed" ]; then
                echo "installing $* into $venv (once)" >&2
                rm -rf "$venv"
                "$(venv_python)" -m venv "$venv" >&2 &&
                    "$venv/bin/pip" install --quiet --disable-pip-version-check "$@" >&2 ||
                    { echo "pip could not install $* (is PyPI reachable?)" >&2; exit 2; }
                VENV=$venv bash -c "$check" >&2 ||
                    { echo "$venv does not work: '$check' failed" >&2; exit 2; }
                touch "$venv/.installed"
            fi
        ) 9>"$venv.lock" || return 2
    fi
    echo "$venv"
}
