package tutor

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// ScopeRule is one out-of-scope pattern and the excluded topic it stands
// for ("advanced control theory").
type ScopeRule struct {
	Topic   string `json:"topic"`
	Pattern string `json:"pattern"`
	re      *regexp.Regexp
}

// Scope detects questions about topics the course excludes.
type Scope struct {
	rules []ScopeRule
}

// DefaultScopeRules are the refusal spec's OUT_OF_SCOPE_PATTERNS, grouped
// under the spec's out-of-scope topics.
var DefaultScopeRules = []ScopeRule{
	{Topic: "advanced control theory", Pattern: `\b(PID tuning|optimal control|MPC|model predictive)\b`},
	{Topic: "advanced control theory", Pattern: `\b(Kalman filter|LQR|sliding mode)\b`},
	{Topic: "low-level motor control", Pattern: `\b(PWM|pulse width|current control|motor driver)\b`},
	{Topic: "low-level motor control", Pattern: `\b(H-bridge|MOSFET|brushless DC)\b`},
	{Topic: "custom hardware design", Pattern: `\b(PCB|printed circuit|mechanical CAD|SolidWorks)\b`},
	{Topic: "custom hardware design", Pattern: `\b(fabrication|3D print|machining)\b`},
	{Topic: "training foundation models", Pattern: `\b(train|training|fine-tune|finetuning)\s+(a\s+)?(model|LLM|neural)\b`},
	{Topic: "training foundation models", Pattern: `\b(backpropagation|gradient descent|loss function)\b`},
	{Topic: "ROS 1 (this course is ROS 2 only)", Pattern: `\bROS\s*1\b`},
	{Topic: "ROS 1 (this course is ROS 2 only)", Pattern: `\b(catkin|rosbuild|roslaunch.*\.launch)\b`},
	{Topic: "simulation platforms this course does not cover", Pattern: `\b(Webots|CoppeliaSim|V-REP|PyBullet)\b`},
}

// NewScope compiles rules; every pattern matches case-insensitively.
func NewScope(rules []ScopeRule) (*Scope, error) {
	s := &Scope{}
	for i, r := range rules {
		if strings.TrimSpace(r.Pattern) == "" {
			return nil, fmt.Errorf("scope rule %d: empty pattern", i+1)
		}
		re, err := regexp.Compile(`(?i)` + r.Pattern)
		if err != nil {
			return nil, fmt.Errorf("scope rule %d (%s): %w", i+1, r.Topic, err)
		}
		r.re = re
		s.rules = append(s.rules, r)
	}
	return s, nil
}

// DefaultScope is the spec's patterns, compiled.
func DefaultScope() *Scope {
	s, err := NewScope(DefaultScopeRules)
	if err != nil {
		panic(err) // the built-in patterns are constants
	}
	return s
}

// LoadScope reads rules from a JSON file: [{"topic": "...", "pattern": "..."}].
func LoadScope(path string) (*Scope, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read scope patterns: %w", err)
	}
	var rules []ScopeRule
	if err := json.Unmarshal(b, &rules); err != nil {
		return nil, fmt.Errorf("parse scope patterns %s: %w", path, err)
	}
	s, err := NewScope(rules)
	if err != nil {
		return nil, fmt.Errorf("scope patterns %s: %w", path, err)
	}
	return s, nil
}

// Match reports whether the question is out of scope and names the topic
// as the message shows it: what the reader wrote, then the excluded area,
// e.g. "PID tuning (advanced control theory)".
func (s *Scope) Match(question string) (string, bool) {
	if s == nil {
		return "", false
	}
	for _, r := range s.rules {
		if m := r.re.FindString(question); m != "" {
			if r.Topic == "" {
				return m, true
			}
			return m + " (" + r.Topic + ")", true
		}
	}
	return "", false
}
