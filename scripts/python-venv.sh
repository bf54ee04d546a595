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
