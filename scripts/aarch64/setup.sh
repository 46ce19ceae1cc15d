#!/usr/bin/env bash
# What the aarch64 step of scripts/test.sh needs, installed when missing: the Debian packages
# qemu-user (runs the test binaries), gcc-aarch64-linux-gnu and libc6-dev-arm64-cross (link
# them), and the rustup targets aarch64-unknown-linux-gnu and aarch64-apple-darwin. Fails
# loudly when it cannot install them (no root, no apt-get): the aarch64 tests are part of the
# test run, never skipped.
set -euo pipefail

fail() {
    echo "" >&2
    echo "ERROR (aarch64 step): $*" >&2
    echo "" >&2
    exit 1
}

missing=()
command -v qemu-aarch64 >/dev/null 2>&1 || missing+=(qemu-user)
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing+=(gcc-aarch64-linux-gnu)
dpkg -s libc6-dev-arm64-cross >/dev/null 2>&1 || missing+=(libc6-dev-arm64-cross)

if ((${#missing[@]})); then
    command -v apt-get >/dev/null 2>&1 ||
        fail "missing ${missing[*]}, and there is no apt-get to install them with"
    if [[ $(id -u) -eq 0 ]]; then
        as_root=()
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        as_root=(sudo -n)
    else
        fail "missing the Debian packages ${missing[*]}; installing them needs root" \
            "(run this script as root, or: sudo apt-get install ${missing[*]})"
    fi
    echo "   installing ${missing[*]} (apt-get)"
    "${as_root[@]}" apt-get update -qq || fail "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null || fail "apt-get install ${missing[*]} failed"
fi

command -v rustup >/dev/null 2>&1 ||
    fail "no rustup: the aarch64 standard libraries come from rustup target add"
installed=$(rustup target list --installed)
for target in aarch64-unknown-linux-gnu aarch64-apple-darwin; do
    if ! grep -qx "$target" <<<"$installed"; then
        rustup target add "$target" || fail "rustup target add $target failed"
    fi
done
