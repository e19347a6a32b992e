package workflows_test

import (
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"

	"github.com/pcflow/pcflow/internal/tserver"
)

var _ = client.Options{}

func listReq(q string) *workflowservice.ListWorkflowExecutionsRequest {
	return &workflowservice.ListWorkflowExecutionsRequest{Namespace: tserver.Namespace, Query: q}
}

func payloadSize(e *historypb.HistoryEvent) int { return proto.Size(e) }
