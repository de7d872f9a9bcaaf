package answer

import (
	"testing"

	"github.com/textbook-rag/rag/analysis"
	"github.com/textbook-rag/rag/internal/testbook"
)

func TestNamesUnknown(t *testing.T) {
	ans := New(analysis.NewBook(testbook.Chunks))
	tests := []struct {
		q    string
		want bool
	}{
		{"How do I configure AMCL on a saved map?", true},
		{"What does static_transform_publisher do?", true},
		{"What is a Hidden Markov Model?", true},
		{"Which VLP16 settings matter?", true},
		{"What is a topic?", false},
		{"How does a LiDAR measure distance?", false},
		{"How do I create the gripper service client with create_client?", false},
		{"Why does my robot drift?", false},
		{"Robots: why do they drift?", false},
		{"How fast does an IMU's heading drift?", false},
		{"Once I've got an IMU, what does it measure?", false},
		{"What does a navigation IMU with 0.01°/hr bias stability cost?", false},
		{"Which AMCL's settings matter?", true},
		{"In self.create_client(SetBool, 'gripper') what is 'gripper' for?", false},
		{"What is in config/amcl_params.yaml?", true},
	}
	for _, tt := range tests {
		if got := ans.namesUnknown(tt.q); got != tt.want {
			t.Errorf("namesUnknown(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

func TestNamesAPI(t *testing.T) {
	ans := New(analysis.NewBook(testbook.Chunks))
	tests := []struct {
		q, text string
		want    bool
	}{
		{"How do I create a publisher?", "Call `node.create_publisher(String, 'chatter', 10)` once.", true},
		{"What does create_publisher take?", "Call `node.create_publisher(String, 'chatter', 10)` once.", false},
		{"What rate does humanoid_controller run at?", "class HumanoidController(Node): runs the loop.", false},
		{"What rate does the humanoid controller run at?", "class HumanoidController(Node): runs the loop.", true},
	}
	for _, tt := range tests {
		r := ans.readQuestion(ans.Read(tt.q), ans.Read(tt.q).Query)
		f := r.scoreUnits(selectionUnits(tt.text))
		got := false
		for _, n := range f.namesAPI {
			got = got || n
		}
		if got != tt.want {
			t.Errorf("names_api(%q, %q) = %v, want %v", tt.q, tt.text, got, tt.want)
		}
	}
}
