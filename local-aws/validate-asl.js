#!/usr/bin/env node
'use strict';
// Validates Amazon States Language definitions with asl-validator (JSONPath and ARN checks on).
// Usage: node validate-asl.js <definition.json>...
// Prints one JSON line per file: {"file": ..., "valid": true|false, "errors": ["<CODE>: <message>", ...]}.
// Exit code 0 when all are valid, 1 when one is not, 2 when a file cannot be read or parsed.

const fs = require('fs');
const validator = require('asl-validator');

let exitCode = 0;
for (const file of process.argv.slice(2)) {
  let definition;
  try {
    definition = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    process.stdout.write(JSON.stringify({ file, valid: false, errors: [`cannot read: ${err.message}`] }) + '\n');
    exitCode = 2;
    continue;
  }
  const result = validator(definition, { checkPaths: true, checkArn: true });
  const errors = (result.errors || []).map((e) => `${e['Error code']}: ${e.Message}`);
  process.stdout.write(JSON.stringify({ file, valid: result.isValid, errors }) + '\n');
  if (!result.isValid && exitCode === 0) exitCode = 1;
}
process.exit(exitCode);
