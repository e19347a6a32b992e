// Package mcpserver serves pcflow's devices to MCP clients (pcflow mcp):
// the Model Context Protocol over stdio or streamable HTTP, built on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// Tools (tools.go): devices lists the devices the Temporal server knows;
// observe returns a device's screen as the Decision agent sees it (the
// Set-of-Marks screenshot as an image, the numbered element list); act
// runs one action of pcflow's closed, typed action set on an element id
// of the session's last observation or on a point.
//
// Contract:
//   - Every act is a Temporal workflow (workflows.MCPActWorkflow) whose
//     id is the device and the client's request_id: a call retried with
//     the same request_id — after a dropped connection, or a pcflow mcp
//     killed and started again — returns the recorded result and never
//     acts twice. The action itself is the Act activity on the device's
//     queue: the device's action log records it, the operator's policy
//     decides it first (a confirm rule holds it until pcflow approve
//     decides its workflow; the client is told so and asks again),
//     secrets are substituted on the device and
//     redacted from what comes back. The same request_id with other
//     arguments is refused.
//   - A device is leased to one MCP session at a time (worker.HoldDevice
//     under workflows.MCPLeaseDevice): another session is refused with the
//     holder's name until the first ends or its lease lapses.
//   - Observations are workflows too (the Observe activity); their images
//     and element lists are read from the artifact store of the state
//     folder, so pcflow mcp runs where the devices' workers keep it.
//   - Over HTTP every request passes internal/httpguard first: the bearer
//     token, the Host (DNS rebinding) and the Origin.
package mcpserver
