package harness

import "fmt"

// Delivery says how a prompt is delivered: as a prompt's streaming
// behaviour (PromptOptions.StreamingBehavior: what to do while a run is
// going) and as the answer of Prompt (how it was taken). The values are the
// wire's names (agent/prompt's streamingBehavior and delivery).
type Delivery string

// Deliveries.
const (
	DeliveryRun       Delivery = "run"       // started a new run (an answer only)
	DeliverySteer     Delivery = "steer"     // delivered after the current tool calls
	DeliveryFollowUp  Delivery = "followUp"  // delivered when the run would end
	DeliveryInterrupt Delivery = "interrupt" // the run was aborted and this one started
)

// ParseDelivery reads a streaming behaviour by its wire name: "steer",
// "followUp" or "interrupt"; "" is steer. Anything else is ErrInvalid.
func ParseDelivery(s string) (Delivery, error) {
	switch d := Delivery(s); d {
	case "", DeliverySteer:
		return DeliverySteer, nil
	case DeliveryFollowUp, DeliveryInterrupt:
		return d, nil
	}
	return "", fmt.Errorf("%w: streamingBehavior %q (want steer|followUp|interrupt)", ErrInvalid, s)
}
