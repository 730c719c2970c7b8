#!/usr/bin/env node
'use strict';
// Runs one execution of an Amazon States Language definition with aws-local-stepfunctions, its Task states
// invoking Lambda functions at a local endpoint that speaks the Lambda Invoke API.
//
// Usage: node run-state-machine.js --definition <file> --lambda-endpoint <url>
//                                  [--input-file <file>] (default: stdin) [--retry-interval-ms <n>]
//                                  [--execution-name <name>]
//                                  [--child-definition <state machine ARN>=<file>]... (see startExecution below)
// Prints one JSON line on stdout:
//   {"status": "SUCCEEDED"|"FAILED"|"TIMED_OUT", "output": <JSON value or null>, "error": ..., "cause": ...,
//    "states": [<names of the top-level states entered, in order; states inside Map iterations left out>],
//    "payloads": {<state>: {<kind>: <largest size in bytes>}},
//    "violations": [{"state", "kind", "bytes", "limit"}: each state and kind whose largest is over the limit]}
// Payload sizes are the UTF-8 bytes of the JSON text, measured because Step Functions refuses any of them
// above 256 KiB (States.DataLimitExceeded, which States.ALL does not catch) and this interpreter does not.
// <state> is a top-level state's name, or "<Map state>/<state>" for a state inside a Map iteration, or
// "(execution)". Kinds: input, output (a state's, after its paths), task_parameters (what a Task sends),
// task_result (what the Lambda function returned, before ResultSelector/ResultPath), items (a Map's
// ItemsPath result: a Distributed Map reading items from its input takes at most 256 KiB), map_result (the
// array of the iterations' outputs, before ResultPath), error_cause (an Error and Cause a state failed with).
// Exit code 0 when the execution ran (whatever its outcome), 1 when it could not start (bad arguments, a
// definition the library rejects); the reason goes to stderr.

// aws-local-stepfunctions 3 uses Promise.withResolvers (Node 22); Node 20 lacks it.
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers() {
    let resolve;
    let reject;
    const promise = new this((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

function parseArgs(argv) {
  const args = { children: {} };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    if (!key.startsWith('--') || i + 1 >= argv.length) {
      throw new Error(`unexpected argument: ${key}`);
    }
    const value = argv[++i];
    if (key === '--child-definition') {
      const at = value.lastIndexOf('=');
      if (at <= 0) throw new Error(`--child-definition wants <state machine ARN>=<file>, got: ${value}`);
      args.children[value.slice(0, at)] = value.slice(at + 1);
    } else {
      args[key.slice(2)] = value;
    }
  }
  return args;
}

function fail(message) {
  process.stderr.write(`run-state-machine: ${message}\n`);
  process.exit(1);
}

let args;
try {
  args = parseArgs(process.argv.slice(2));
} catch (err) {
  fail(err.message);
}
if (!args.definition) fail('--definition is required');
if (!args['lambda-endpoint']) fail('--lambda-endpoint is required');

// The AWS SDK for JavaScript reads the endpoint of each service from AWS_ENDPOINT_URL_<SERVICE> when a client
// is created; aws-local-stepfunctions creates a Lambda client per Task state, after this line.
process.env.AWS_ENDPOINT_URL_LAMBDA = args['lambda-endpoint'];
delete process.env.AWS_ENDPOINT_URL;
delete process.env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS;
// One attempt per invocation: Step Functions hands a Lambda service error (a throttle above all) to the
// state's Retry, where the SDK's own three attempts would hide it from the definition under test.
process.env.AWS_MAX_ATTEMPTS = '1';
const REGION = 'us-east-1';
process.env.AWS_REGION = REGION;
const AWS_CONFIG = {
  region: REGION,
  credentials: { accessKeys: { accessKeyId: 'testkit', secretAccessKey: 'testkit' } },
};

const { StateMachine, ExecutionError, ExecutionTimeoutError } = require('aws-local-stepfunctions');

// The payload sizes measured, and the limit (the same for every kind).
const PAYLOAD_LIMIT_BYTES = 262144;
const payloads = {};
const taskStates = new Map(); // function name -> the Task states whose Resource it is
const taskFunction = new Map(); // Task state's reported name -> its function name
const activeTasks = new Map(); // function name -> Map(Task state's reported name -> iterations inside it)

// The Task states now running a function: a function shared by several states (ReleaseLease and
// ReleaseLeaseAfterFailure) is measured under the one entered. The interpreter logs StateEntered before
// it invokes the function, and this process reads that event before the function's response arrives.
function statesRunning(fn) {
  const running = [...(activeTasks.get(fn) || new Map()).entries()].filter(([, n]) => n > 0).map(([name]) => name);
  return running.length > 0 ? running : taskStates.get(fn) || ['(unknown task)'];
}

function taskEntered(name, entered) {
  const fn = taskFunction.get(name);
  if (fn === undefined) return;
  const counts = activeTasks.get(fn) || new Map();
  counts.set(name, (counts.get(name) || 0) + (entered ? 1 : -1));
  activeTasks.set(fn, counts);
}

function byteSize(value) {
  if (value === undefined) return 0;
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

function measure(state, kind, bytes) {
  const sizes = (payloads[state] = payloads[state] || {});
  if (!(kind in sizes) || bytes > sizes[kind]) sizes[kind] = bytes;
}

// One entry per state and kind whose largest payload is over the limit.
function violations() {
  const over = [];
  for (const [state, sizes] of Object.entries(payloads)) {
    for (const [kind, bytes] of Object.entries(sizes)) {
      if (bytes > PAYLOAD_LIMIT_BYTES) over.push({ state, kind, bytes, limit: PAYLOAD_LIMIT_BYTES });
    }
  }
  return over;
}

// Real Step Functions reports a Lambda function error as Error = the payload's errorType and Cause = the
// payload itself (the JSON text {"errorMessage", "errorType", "stackTrace"}), in Catch outputs and in the
// execution's failure alike. aws-local-stepfunctions 3.0.0 makes Cause "<errorType>: <errorMessage>".
// Raising the error from the Lambda client itself, with the payload as message, gives the real shape.
// The same hook measures what each Task sends and what its function returns.
const lambdaSdk = require(
  require.resolve('@aws-sdk/client-lambda', {
    paths: [path.dirname(require.resolve('aws-local-stepfunctions'))],
  })
);
const originalSend = lambdaSdk.LambdaClient.prototype.send;
lambdaSdk.LambdaClient.prototype.send = async function send(command, ...rest) {
  const invoke = command instanceof lambdaSdk.InvokeCommand;
  const sent = invoke && command.input.Payload ? Buffer.byteLength(Buffer.from(command.input.Payload)) : 0;
  let response;
  try {
    response = await originalSend.call(this, command, ...rest);
  } catch (err) {
    // A service error of the Invoke API itself (429 throttling, 5xx): Step Functions names it
    // Lambda.<exception>, e.g. Lambda.TooManyRequestsException, which is what a Retry matches.
    if (invoke && err && err.$metadata && typeof err.name === 'string' && !err.name.startsWith('Lambda.')) {
      err.name = 'Lambda.' + err.name;
    }
    throw err;
  }
  if (invoke) {
    const received = response.Payload ? Buffer.byteLength(Buffer.from(response.Payload)) : 0;
    statesRunning(functionNameOf(command.input.FunctionName)).forEach((state) => {
      measure(state, 'task_parameters', sent);
      measure(state, 'task_result', received);
    });
  }
  if (invoke && response.FunctionError) {
    const payload = response.Payload ? Buffer.from(response.Payload).toString('utf8') : '';
    let errorType;
    try {
      errorType = JSON.parse(payload).errorType;
    } catch (ignored) {
      errorType = undefined;
    }
    const error = new Error(payload);
    error.name = typeof errorType === 'string' && errorType ? errorType : 'Lambda.Unknown';
    if (error.name === 'States.DataLimitExceeded') {
      // LocalLambda's stand-in for Step Functions refusing a result over 256 KiB: in AWS it is terminal,
      // neither retried nor caught (not even by States.ALL); the interpreter honours these two flags.
      error.isRetryable = false;
      error.isCatchable = false;
    }
    throw error;
  }
  return response;
};

// The function name of a Lambda ARN or name (as LocalLambda reads it).
function functionNameOf(nameOrArn) {
  let value = String(nameOrArn);
  const marker = value.indexOf(':function:');
  if (marker >= 0) value = value.slice(marker + ':function:'.length);
  const qualifier = value.indexOf(':');
  return qualifier >= 0 ? value.slice(0, qualifier) : value;
}

// Every state of the definition by its reported name ("<Map>/<state>" inside a Map's iterations), and the
// Task states of each Lambda function. Nested events carry only the state's own name: a name used in two
// Maps, or both in a Map and at the top level, is reported under the first found.
function indexStates(definition, prefix = '', index = { nested: new Map(), maps: new Map() }) {
  for (const [name, state] of Object.entries(definition.States || {})) {
    const reported = prefix + name;
    if (prefix && !index.nested.has(name)) index.nested.set(name, reported);
    if (state.Type === 'Task' && typeof state.Resource === 'string') {
      const fn = functionNameOf(state.Resource);
      taskStates.set(fn, [...(taskStates.get(fn) || []), reported]);
      taskFunction.set(reported, fn);
    }
    if (state.Type === 'Map') index.maps.set(reported, state);
    const processor = state.ItemProcessor || state.Iterator;
    if (processor) indexStates(processor, reported + '/', index);
    for (const branch of state.Branches || []) indexStates(branch, reported + '/', index);
  }
  return index;
}

// Names of all states with a Retry field, nested Map/Parallel states included (for --retry-interval-ms).
function statesWithRetry(definition, names = new Set()) {
  for (const [name, state] of Object.entries(definition.States || {})) {
    if (Array.isArray(state.Retry)) names.add(name);
    if (state.Iterator) statesWithRetry(state.Iterator, names);
    if (state.ItemProcessor) statesWithRetry(state.ItemProcessor, names);
    for (const branch of state.Branches || []) statesWithRetry(branch, names);
  }
  return names;
}

// Task states that start another state machine and wait for it (arn:aws:states:::states:startExecution.sync:2),
// which aws-local-stepfunctions does not run: each is handled here by running the child's definition (from
// --child-definition) in this process with the task's Input, as Step Functions would. Its result has
// startExecution.sync:2's shape (Output parsed as JSON); a child that fails makes the task fail with
// States.TaskFailed and, as Cause, the child's execution description (Status, Error, Cause) as JSON text.
// Child executions' own states are not measured; their input and output are (as the task's parameters and
// result). Execution names must be unique per state machine, as in AWS (ExecutionAlreadyExists).
const START_EXECUTION = /^arn:aws:states:::states:startExecution\.sync(:2)?$/;
const childExecutionNames = new Set();

function startExecutionStates(definition, names = []) {
  for (const [name, state] of Object.entries(definition.States || {})) {
    if (state.Type === 'Task' && START_EXECUTION.test(String(state.Resource))) names.push(name);
    const processor = state.ItemProcessor || state.Iterator;
    if (processor) startExecutionStates(processor, names);
    for (const branch of state.Branches || []) startExecutionStates(branch, names);
  }
  return names;
}

function childHandlers(definition) {
  const handlers = {};
  for (const name of startExecutionStates(definition)) {
    handlers[name] = async (parameters) => {
      const arn = parameters.StateMachineArn;
      const file = args.children[arn];
      if (!file) {
        const error = new Error(`no --child-definition for ${arn}`);
        error.name = 'StepFunctions.StateMachineDoesNotExistException';
        throw error;
      }
      const childName = parameters.Name || crypto.randomUUID();
      if (childExecutionNames.has(`${arn}:${childName}`)) {
        const error = new Error(`Execution Already Exists: '${arn}:${childName}'`);
        error.name = 'StepFunctions.ExecutionAlreadyExistsException';
        throw error;
      }
      childExecutionNames.add(`${arn}:${childName}`);
      const childDefinition = JSON.parse(fs.readFileSync(file, 'utf8'));
      const childInput =
        typeof parameters.Input === 'string' ? JSON.parse(parameters.Input) : parameters.Input || {};
      measure(name, 'task_parameters', byteSize(parameters));
      const executionArn = arn.replace(':stateMachine:', ':execution:') + ':' + childName;
      const child = new StateMachine(childDefinition, { awsConfig: AWS_CONFIG });
      const childRun = child.run(childInput, {
        overrides: {
          taskResourceLocalHandlers: childHandlers(childDefinition),
          ...(retryOverrides(childDefinition) ? { retryIntervalOverrides: retryOverrides(childDefinition) } : {}),
        },
        context: {
          Execution: { Id: executionArn, Name: childName },
          StateMachine: { Id: arn, Name: arn.slice(arn.lastIndexOf(':') + 1) },
        },
      });
      try {
        const output = await childRun.result;
        const result = { ExecutionArn: executionArn, Name: childName, Status: 'SUCCEEDED', Output: output };
        measure(name, 'task_result', byteSize(result));
        return result;
      } catch (err) {
        const cause = err instanceof ExecutionError && err.cause ? err.cause : err;
        const error = new Error(JSON.stringify({
          ExecutionArn: executionArn, Name: childName, Status: 'FAILED', Error: cause.name || 'Error',
          Cause: cause.message === undefined ? null : String(cause.message),
        }));
        error.name = 'States.TaskFailed';
        throw error;
      }
    };
  }
  return handlers;
}

function retryOverrides(definition) {
  if (args['retry-interval-ms'] === undefined) return null;
  const overrides = {};
  for (const name of statesWithRetry(definition)) overrides[name] = Number(args['retry-interval-ms']);
  return overrides;
}

// Resolves once the line is handed to the OS: a pipe's writes are asynchronous, and exiting earlier cuts a
// long line short.
function print(result) {
  return new Promise((resolve) => process.stdout.write(JSON.stringify(result) + '\n', () => resolve()));
}

async function main() {
  const definition = JSON.parse(fs.readFileSync(args.definition, 'utf8'));
  const inputText = args['input-file'] ? fs.readFileSync(args['input-file'], 'utf8') : fs.readFileSync(0, 'utf8');
  const input = inputText.trim() === '' ? {} : JSON.parse(inputText);

  let stateMachine;
  try {
    stateMachine = new StateMachine(definition, { awsConfig: AWS_CONFIG });
  } catch (err) {
    fail(`definition rejected: ${err.message}`);
  }

  const runOptions = {
    overrides: {
      taskResourceLocalHandlers: childHandlers(definition),
    },
  };
  if (retryOverrides(definition)) runOptions.overrides.retryIntervalOverrides = retryOverrides(definition);
  const executionName = args['execution-name'] || crypto.randomUUID();
  const stateMachineName = path.basename(args.definition).replace(/\.[^.]*$/, '') || 'local';
  runOptions.context = {
    Execution: {
      Id: `arn:aws:states:${REGION}:123456789012:execution:${stateMachineName}:${executionName}`,
      Name: executionName,
      RoleArn: `arn:aws:iam::123456789012:role/${stateMachineName}`,
    },
    StateMachine: {
      Id: `arn:aws:states:${REGION}:123456789012:stateMachine:${stateMachineName}`,
      Name: stateMachineName,
    },
  };

  const index = indexStates(definition);
  const jsonPath = require(
    require.resolve('jsonpath-plus', { paths: [path.dirname(require.resolve('aws-local-stepfunctions'))] })
  );
  // A Map's result before its ResultPath: the iterations' outputs as one array.
  const mapResults = new Map(); // "<Map>" -> {bytes, count}
  const stateName = (event) =>
    event.index === undefined ? event.state.name : index.nested.get(event.state.name) || event.state.name;
  const execution = stateMachine.run(input, runOptions);
  // The execution's path: events of states inside a Map iteration carry the iteration's index.
  const states = [];
  const onEvent = (event) => {
    switch (event.type) {
      case 'ExecutionStarted':
        measure('(execution)', 'input', byteSize(event.input));
        break;
      case 'ExecutionSucceeded':
        measure('(execution)', 'output', byteSize(event.output));
        break;
      case 'StateEntered': {
        const name = stateName(event);
        if (event.index === undefined) states.push(event.state.name);
        taskEntered(name, true);
        measure(name, 'input', byteSize(event.state.input));
        const map = index.maps.get(name);
        if (map && map.ItemsPath) {
          const items = jsonPath.JSONPath({ path: map.ItemsPath, json: event.state.input, wrap: false });
          measure(name, 'items', byteSize(items));
        } else if (map) {
          measure(name, 'items', byteSize(event.state.input));
        }
        if (map) mapResults.set(name, { bytes: 2, count: 0 });
        break;
      }
      case 'StateExited':
        taskEntered(stateName(event), false);
        measure(stateName(event), 'output', byteSize(event.state.output));
        break;
      case 'StateFailed':
        measure(stateName(event), 'error_cause', byteSize({ Error: event.Error, Cause: event.Cause }));
        break;
      case 'MapIterationSucceeded': {
        const result = mapResults.get(event.parentState.name);
        if (result) {
          result.bytes += byteSize(event.output) + (result.count > 0 ? 1 : 0);
          result.count++;
          measure(event.parentState.name, 'map_result', result.bytes);
        }
        break;
      }
      default:
        break;
    }
  };
  const collecting = (async () => {
    for await (const event of execution.eventLogs) onEvent(event);
  })();
  // The event log closes when the execution ends; do not wait for it much longer than that.
  const collected = () => Promise.race([collecting, new Promise((resolve) => setTimeout(resolve, 5000))]);
  const measured = () => ({ payloads, violations: violations() });
  try {
    const output = await execution.result;
    await collected();
    await print({
      status: 'SUCCEEDED', output: output === undefined ? null : output, error: null, cause: null, states,
      ...measured(),
    });
  } catch (err) {
    await collected();
    if (err instanceof ExecutionTimeoutError) {
      await print({
        status: 'TIMED_OUT', output: null, error: 'States.Timeout', cause: 'The execution timed out', states,
        ...measured(),
      });
      return;
    }
    const cause = err instanceof ExecutionError && err.cause ? err.cause : err;
    await print({
      status: 'FAILED',
      output: null,
      error: cause.name || 'Error',
      cause: cause.message === undefined ? null : String(cause.message),
      states,
      ...measured(),
    });
  }
}

main().then(
  () => process.exit(0),
  (err) => fail(err && err.stack ? err.stack : String(err))
);
