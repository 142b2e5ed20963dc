#!/usr/bin/env node
// Thin launcher so the package `bin` works from an install: the CLI lives in the built output.
import '../dist/cli.js';
