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
