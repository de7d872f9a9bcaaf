package analysis

// Stopwords are function words: they say how a question is asked, not
// what it is about, so they take no part in matching.
var Stopwords = setOf(`a about above after again against all also am an and any are as at
be because been before being below between both but by can cannot could did do does doing
done down during each either else even ever every few for from further get gets getting got
had has have having he her here hers herself him himself his how i if in into is it its
itself just let lets like may me might more most much must my myself no nor not now of off
on once one only or other ought our ours ourselves out over own per please quite rather
really same shall she should so some such than that the their theirs them themselves then
there these they this those through thus to too under until up upon us very was we were
what whats when where whether which while who whom whose why will with within without would
yet you your yours yourself yourselves i'm it's don't
though although however unless whenever whatever whichever already still always never
often sometimes forever almost enough instead maybe perhaps otherwise anymore somehow
onto besides several
isn't aren't wasn't weren't doesn't didn't hasn't haven't hadn't won't wouldn't shouldn't
couldn't mustn't needn't can't
`)

// QuestionWords carry the shape of a question ("what does X mean",
// "explain how", "tell me") rather than its subject. They are left out of
// the subject but a few of them (how many, how much, when) steer the
// evidence finder towards numbers.
var QuestionWords = setOf(`actually anyone anything anyway ask asked basically briefly
certain describe described detail details difference differences exactly explain
explained explaining give good happen happens help idea kind kinds know learn
mean meaning means need needs okay particular possible probably show simple
simply someone something sort specific tell thing things think try
trying understand want way ways wonder wondering work works
according book books chapter chapters course courses covered mention mentioned
mentions page pages recommend recommended recommends say said says section
sections textbook textbooks tutorial
approximately about around roughly usually typically typical generally commonly
main major overall basically essentially
go goes going gone went come comes coming came get gets getting got
make makes making made take takes taking took put puts putting keep keeps
keeping kept give gives giving gave working better worse step-by-step stand stands
stuff weird odd strange great nice cool awesome bad fine ok
`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, t := range Tokenize(words) {
		m[t.Word] = true
	}
	return m
}

// SelectionWords refer to a reader's selection rather than to a subject:
// a question made only of them asks about the selection itself.
var SelectionWords = setOf(`above bit clarify clearer example excerpt here line lines paragraph
part passage phrase plain plainer rephrase sentence sentences simpler simplify selected
selection snippet summarise summarize summary text this word words`)
