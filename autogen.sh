#!/bin/sh
# Generate configure and Makefile.in (needs autoconf, automake).
set -e
cd "$(dirname "$0")"
autoreconf -fi
