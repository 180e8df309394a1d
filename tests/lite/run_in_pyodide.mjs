// Runs a Python script in the real Pyodide core under Node, after unpacking wheels into its
// site-packages: node run_in_pyodide.mjs PYODIDE_DIR SCRIPT.py FILE... (a .whl is unpacked; any
// other file is copied to /work/ under its name). The script's output is printed; an exception
// in it ends the process with status 1.
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, script, ...files] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(resolve(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: resolve(pyodideDir) + "/" });
pyodide.setStdout({ batched: (line) => console.log(line) });
pyodide.setStderr({ batched: (line) => console.error(line) });
pyodide.FS.mkdirTree("/work");
for (const file of files) {
  const bytes = new Uint8Array(readFileSync(file)); // Pyodide takes no Node Buffer
  if (file.endsWith(".whl")) pyodide.unpackArchive(bytes, "wheel");
  else pyodide.FS.writeFile(`/work/${basename(file)}`, bytes);
}
try {
  await pyodide.runPythonAsync(readFileSync(script, "utf8"), { filename: basename(script) });
} catch (error) {
  console.error(String(error));
  process.exit(1);
}
