package main

import (
	"fmt"
	"strings"
)

// Reverse returns s with its runes in reverse order.
func Reverse(s string) string {
	runes := []rune(s)
	for i, j := 0, len(runes)-1; i < j; i, j = i+1, j-1 {
		runes[i], runes[j] = runes[j], runes[i]
	}
	return string(runes)
}

func main() {
	words := strings.Fields("hello tiny code")
	for _, w := range words
		fmt.Println(Reverse(w))
	}
}
