package tutor

import "strings"

// The refusal spec's message templates, word for word. The course name
// and the scope list are filled from configuration and the ingested book.

// InsufficientContextMessage is the spec's "Insufficient Context" template.
const InsufficientContextMessage = `I found some related content, but not enough to provide a confident answer.

You can try:
1. Rephrasing your question with more specific terms
2. Selecting specific text from the chapter for targeted explanation
3. Asking about a narrower aspect of the topic`

// SelectedTextInsufficientMessage is the spec's "Selected Text
// Insufficient" template.
const SelectedTextInsufficientMessage = `The selected text doesn't contain enough information to answer your question.

You can:
1. Select a different section that covers this topic
2. Remove the selection to search the full textbook
3. Rephrase your question based on what's in the selected text`

// EmptyRetrievalMessage is the spec's "Empty Retrieval" template. Without
// a detected topic its second sentence is left out rather than printed
// with a placeholder; without a course name it says "this course".
func EmptyRetrievalMessage(course, topic string) string {
	msg := "I can only answer questions from the textbook content. This topic doesn't appear to be covered in the course materials."
	if topic != "" {
		scope := "the " + withoutArticle(course) + " course"
		if course == "" {
			scope = "this course"
		}
		msg += "\n\nIf you're looking for information on " + topic + ", this may be outside the scope of " + scope + "."
	}
	return msg
}

// OutOfScopeMessage is the spec's "Out of Scope" template with the book's
// module titles as the scope list; without a course name it says "This
// textbook".
func OutOfScopeMessage(course string, modules []string, topic string) string {
	var b strings.Builder
	b.WriteString("This topic is outside the scope of this course.\n\n")
	if course == "" {
		b.WriteString("This textbook covers:\n")
	} else {
		b.WriteString("The " + withoutArticle(course) + " textbook covers:\n")
	}
	for _, m := range modules {
		b.WriteString("- " + m + "\n")
	}
	if topic == "" {
		topic = "this topic"
	}
	b.WriteString("\nFor " + topic + ", please refer to specialized resources.")
	return b.String()
}

// withoutArticle is a course's name without a leading "The", which the
// templates' own article replaces: "The Embedded Rust Book" is "the
// Embedded Rust Book course", not "the The Embedded Rust Book course".
func withoutArticle(course string) string {
	if len(course) > 4 && strings.EqualFold(course[:4], "the ") {
		if rest := strings.TrimSpace(course[4:]); rest != "" {
			return rest
		}
	}
	return course
}
