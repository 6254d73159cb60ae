package llmtest

// RealisticTokens counts a request body's tokens roughly as a BPE
// tokenizer does for code and numbers, which is what provider usage
// reports: a run of digits is a token per 3 digits, an escape sequence
// ("\n" in JSON) is one token, other characters are 4 to a token. Numbers
// come out at 2-3 characters per token, ordinary text near 4.
func RealisticTokens(body []byte) int {
	n, other := 0, 0
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c >= '0' && c <= '9':
			j := i
			for j < len(body) && body[j] >= '0' && body[j] <= '9' {
				j++
			}
			n += (j - i + 2) / 3
			i = j - 1
		case c == '\\' && i+1 < len(body):
			n++
			i++
		default:
			other++
		}
	}
	return n + (other+3)/4
}
