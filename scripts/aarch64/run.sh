#!/bin/sh
# Cargo's runner for aarch64-unknown-linux-gnu (.cargo/config.toml): the binary under
# qemu-user with Debian's arm64 cross libc, or directly on a native aarch64 Linux.
case "$(uname -m)" in
aarch64 | arm64) exec "$@" ;;
esac
if ! command -v qemu-aarch64 >/dev/null 2>&1; then
    echo "error: qemu-aarch64 not found: install the Debian package qemu-user" \
        "(and gcc-aarch64-linux-gnu, libc6-dev-arm64-cross) to run aarch64 binaries" >&2
    exit 127
fi
exec qemu-aarch64 -L /usr/aarch64-linux-gnu "$@"
