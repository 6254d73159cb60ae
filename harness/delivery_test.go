package harness_test

import (
	"errors"
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
)

func TestParseDelivery(t *testing.T) {
	for in, want := range map[string]harness.Delivery{
		"":          harness.DeliverySteer,
		"steer":     harness.DeliverySteer,
		"followUp":  harness.DeliveryFollowUp,
		"interrupt": harness.DeliveryInterrupt,
	} {
		got, err := harness.ParseDelivery(in)
		if err != nil || got != want {
			t.Errorf("ParseDelivery(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	// "run" is an answer, never a behaviour; names are case-sensitive.
	for _, in := range []string{"run", "follow_up", "Steer", "next"} {
		if d, err := harness.ParseDelivery(in); !errors.Is(err, harness.ErrInvalid) {
			t.Errorf("ParseDelivery(%q) = %q, %v; want ErrInvalid", in, d, err)
		}
	}
}
