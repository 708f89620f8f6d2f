// Shared by the scripts of this folder: each SDK call is run through check(), which prints
// one JSON line {"call", "ok", "error"} for the Go side to count, and never throws, so one
// failing call does not hide the others. The script's exit code is 0 when it ran to the end.
export async function check(name, fn) {
  try {
    const value = await fn();
    console.log(JSON.stringify({ call: name, ok: true }));
    return value;
  } catch (err) {
    const detail = err?.response?.data ? ` ${JSON.stringify(err.response.data)}` : "";
    console.log(JSON.stringify({ call: name, ok: false, error: `${err?.message ?? err}${detail}`.slice(0, 600) }));
    return undefined;
  }
}

// must fails the call when cond is false, naming what was expected.
export function must(cond, what) {
  if (!cond) throw new Error(`expected ${what}`);
}

export function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

// notImplemented passes when fn is refused as a minitia refuses the L1's routes (Initia's
// tx module gas prices): HTTP 501, gRPC code 12 "Not Implemented".
export async function notImplemented(fn) {
  let answer;
  try {
    answer = await fn();
  } catch (err) {
    const status = err?.response?.status;
    const data = err?.response?.data;
    if (status === 501 && data?.code === 12) return;
    throw new Error(`expected 501 code 12 Not Implemented (the L1's route), got ${status} ${JSON.stringify(data ?? err?.message)}`);
  }
  throw new Error(`expected 501 Not Implemented (the L1's route), got an answer: ${JSON.stringify(answer)}`);
}

// recordGas makes a CosmJS signing client remember its last simulation (fee "auto" asks
// simulate() first) and returns gas(name, res), which prints one JSON line
// {"gas", "simulated", "wanted", "used"} for the Go side to log beside the calls.
export function recordGas(client) {
  const simulate = client.simulate.bind(client);
  let last;
  client.simulate = async (...args) => (last = await simulate(...args));
  return (name, res) => {
    console.log(JSON.stringify({ gas: name, simulated: last, wanted: Number(res?.gasWanted), used: Number(res?.gasUsed) }));
    last = undefined;
    return res;
  };
}
