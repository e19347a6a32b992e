// Package osworldapi serves a pcflow device over the HTTP routes of
// OSWorld's VM-side server (xlang-ai/OSWorld, desktop_env/server), so an
// unmodified OSWorld client (desktop_env/controllers/python.py) and the
// harnesses built on it can drive a pcflow device — closed.
//
// Where OSWorld's server runs whatever it is sent, this one:
//
//   - requires a token on every request, as a bearer token or as the
//     password of HTTP basic credentials (http://pcflow:TOKEN@host:port,
//     the one way an unmodified client sends one), compared in constant
//     time;
//   - answers only requests whose Host is the address it is bound to or
//     an allowed host (DNS rebinding), and refuses an Origin it does not
//     allow;
//   - reads /execute with pcflow's literal-only PyAutoGUI reader (the
//     opencua profile's, profile.ReadPyCalls): pyautogui calls with
//     literal arguments and time.sleep become screen.Actions run through
//     the device's Act; anything else is refused with 403 and the reason;
//   - serves /file and /list_directory only under the roots it is given
//     (the task's home and scratch folders), through os.Root, so neither
//     "..", nor a link, nor an absolute path leaves them;
//   - does not serve /run_python and /run_bash_script (403).
//
// Nothing here is durable: the agent loop runs in the client's process,
// and an /execute acts on the device directly, without a Temporal
// activity, so it is neither journaled nor exactly-once.
package osworldapi
