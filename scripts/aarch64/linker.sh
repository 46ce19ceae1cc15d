#!/bin/sh
# Cargo's linker for aarch64-unknown-linux-gnu (.cargo/config.toml): the cross gcc on any
# other host, the host's own cc on a native aarch64 Linux.
case "$(uname -m)" in
aarch64 | arm64) exec cc "$@" ;;
*) exec aarch64-linux-gnu-gcc "$@" ;;
esac
