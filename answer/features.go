package answer

// A candidate passage is a window of up to maxWindow consecutive units of
// one section of a retrieved chunk. The answerer describes every
// candidate by the named features below and lets the fitted model (see
// Model) turn them into the probability that quoting the candidate's
// section answers the question. None of the features carries a weight of
// its own: how much each counts is learned by `textbook-rag fit` from the
// labelled books.

// Feature names one signal; Doc says what it measures and why it may
// matter. Features lists them in the order of the model's vector.
type Feature struct {
	Name string
	Doc  string
}

// Indices into a feature vector.
const (
	fText = iota
	fHeading
	fLead
	fSection
	fChunk
	fRelated
	fTermsStated
	fSectionText
	fTextGap
	fNamedGap
	fSectionGap
	fHeadingNamed
	fHeadingPrecision
	fUnitBest
	fSpan
	fChars
	fRetrieval
	fRank
	fBM25
	fNumberYes
	fNumberNo
	fTypeYes
	fTypeNo
	fDefines
	fNamesAPI
	fListYes
	fListNo
	fCodeWanted
	fCodeUnwanted
	fCodeLines
	fStepsYes
	fItem
	fRow
	fLabel
	fGoal
	fSummary
	fOverview
	fAsks
	fIntro
	fDepth
	fSectionUnits
	fFirstInSection
	fUnknown
	fTerms
	fQNumber
	fQList
	fQCode
	fQDefinition
	fQHow
	fUnknownName
	fTitleNamed
	fPhrase
	nFeatures
)

// Features documents every signal the answerer's model weighs, in vector
// order. "Share" is always of the question's information: its words
// weighted by how rare each is in the book.
var Features = [nFeatures]Feature{
	fText:             {"text_share", "share stated in the passage's own text"},
	fHeading:          {"heading_share", "share not in the text but named by the passage's own heading"},
	fLead:             {"lead_share", "share found only in the line that introduces the passage (\"Types:\")"},
	fSection:          {"section_share", "share found only in the chunk's section heading or chapter title"},
	fChunk:            {"chunk_share", "share found only elsewhere in the chunk's text"},
	fRelated:          {"related_share", "share matched only by words the book uses in the same places (co-occurrence strength)"},
	fTermsStated:      {"terms_stated", "fraction of the question's words (unweighted) the text states"},
	fSectionText:      {"section_text_share", "share stated anywhere in the text of the passage's section within the chunk"},
	fTextGap:          {"text_gap", "text_share minus the best text_share of any candidate for the question (0 for the best)"},
	fNamedGap:         {"named_gap", "text_share + heading_share minus the best such sum among candidates"},
	fSectionGap:       {"section_gap", "section_text_share minus the best among candidates"},
	fHeadingNamed:     {"heading_named", "share named by the passage's own heading, whether or not the text states it too"},
	fHeadingPrecision: {"heading_precision", "share of the heading's own words that the question uses: a heading about just what was asked"},
	fUnitBest:         {"best_unit_share", "the largest share one unit (sentence, item, row, code block) of the section states: the words stand together"},
	fSpan:             {"span", "units in the window beyond the first (0-2): each further unit must earn its place"},
	fChars:            {"log_chars", "log(1 + characters of the window)"},
	fRetrieval:        {"retrieval_score", "the chunk's score as the built-in retriever counts it (the spec's scale), worked out from the book whichever retriever ran"},
	fRank:             {"retrieval_rank", "1/(1 + the chunk's rank among the confident chunks, in the order the retriever returned them)"},
	fBM25:             {"bm25", "the chunk's BM25 score (k1 1.2, b 0.75) over the question's words, divided by its maximum"},
	fNumberYes:        {"number_stated", "the question asks how many/much/fast and the window states a number the question does not"},
	fNumberNo:         {"number_missing", "the question asks for a quantity and the window states no new number"},
	fTypeYes:          {"answer_type_stated", "the question wants a price or a date and the window states one"},
	fTypeNo:           {"answer_type_missing", "the question wants a price or a date and the window states none"},
	fDefines:          {"defines_subject", "a \"what is X\" question and the window defines X (\"X is ...\", \"**X**: ...\")"},
	fNamesAPI:         {"names_api", "the window uses an identifier spelled from the question's words (create_publisher)"},
	fListYes:          {"list_for_list", "the question asks for several things of a kind and the window is a list item or table row"},
	fListNo:           {"prose_for_list", "the question asks for several things of a kind and the window is not a list or table"},
	fCodeWanted:       {"code_wanted", "the question asks for a command, API or configuration and the window holds code"},
	fCodeUnwanted:     {"code_unwanted", "the window holds code the question did not ask for"},
	fCodeLines:        {"code_lines", "log(1 + lines) of the window's code: a long program holds many words by chance"},
	fStepsYes:         {"steps_for_how", "a \"how do I\" question and the window is a numbered step or code"},
	fItem:             {"kind_item", "the window starts with a list item"},
	fRow:              {"kind_row", "the window starts with a table row"},
	fLabel:            {"kind_label", "the window starts with a short line ending in ':'"},
	fGoal:             {"in_goals", "the section points elsewhere: learning objectives, prerequisites, next steps"},
	fSummary:          {"in_summary", "the section restates: summary, overview, key takeaways, introduction"},
	fOverview:         {"in_module_index", "the chunk is a module's index page, which restates its chapters"},
	fAsks:             {"asks_reader", "the window puts a question to the reader: quiz, exercise, a sentence ending in '?'"},
	fIntro:            {"in_chapter_intro", "the window sits before the first section heading of a page that has sections (a page without sections is all body)"},
	fDepth:            {"heading_depth", "the heading's level below ## (0 for ##, 1 for ###, ...)"},
	fSectionUnits:     {"log_section_units", "log(1 + units of the section in the chunk): how specific the section is"},
	fFirstInSection:   {"first_in_section", "the window starts the section"},
	fUnknown:          {"unknown_share", "share of the question's information in words the book never uses"},
	fTerms:            {"log_question_terms", "log(1 + the question's content words)"},
	fQNumber:          {"asks_number", "the question asks for a quantity"},
	fQList:            {"asks_list", "the question asks for several things of a kind"},
	fQCode:            {"asks_code", "the question asks for a command, API or configuration"},
	fQDefinition:      {"asks_definition", "the question asks only what one term is (\"What is a ROS 2 topic?\", not \"what is the total latency?\")"},
	fQHow:             {"asks_how", "the question asks how to do something"},
	fUnknownName:      {"unknown_name", "the question names something the book never mentions: an acronym, an identifier or a capitalised name (AMCL, static_transform_publisher, Hidden Markov)"},
	fTitleNamed:       {"title_named", "share named by the title of the passage's page: a page about the question's subject, whichever of its headings matched"},
	fPhrase:           {"phrase_stated", "share of the question's adjacent word pairs (after its opening, \"what is a\") that the window's text, its heading or its page's title states as adjacent words: \"a do while loop\" is a phrase, not three words"},
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// isOrdered reports a numbered list item ("1. ...", "2) ...").
func isOrdered(text string) bool {
	i := 0
	for i < len(text) && text[i] >= '0' && text[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(text) && (text[i] == '.' || text[i] == ')') && text[i+1] == ' '
}
