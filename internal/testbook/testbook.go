// Package testbook holds the small books written for the tests of the
// text analysis, the retriever and the answerer.
package testbook

import "github.com/textbook-rag/rag"

// Chunks is a small book of four sections: topics (with a sub-section
// and a list), services (with code after its lead-in), IMUs (with a
// table of prices) and LiDAR.
var Chunks = []rag.Chunk{
	{ID: "topics", ChapterPath: "ros/topics", SectionHeading: "Topics", Text: "[Section: Topics]\n\nA **topic** is a named channel that carries messages from publishers to subscribers. Publishers never wait for subscribers.\n\n### Quality of Service\n\nThe reliability policy decides whether lost messages are sent again.\n\n- `RELIABLE`: resend until the subscriber has it\n- `BEST_EFFORT`: send once and move on", Headings: []rag.Heading{{Level: 2, Text: "Topics", Anchor: "topics"}, {Level: 3, Text: "Quality of Service", Anchor: "qos"}}},
	{ID: "services", ChapterPath: "ros/services", SectionHeading: "Services", Text: "[Section: Services]\n\nA service answers one request with one response. Use a service for a short job such as opening a gripper, which takes about 2 seconds.\n\nCreate the client:\n\n```python\nclient = node.create_client(SetBool, 'gripper')\n```", Headings: []rag.Heading{{Level: 2, Text: "Services", Anchor: "services"}}},
	{ID: "imu", ChapterPath: "sensors/imu", SectionHeading: "Inertial Measurement Units", Text: "[Section: Inertial Measurement Units]\n\nAn IMU measures acceleration and angular velocity. Integrating a small gyroscope bias makes the heading drift without bound.\n\n| Grade | Bias stability | Price |\n|---|---|---|\n| Consumer | 10 deg/hr | $5 |\n| Navigation | 0.01 deg/hr | $10,000 |", Headings: []rag.Heading{{Level: 2, Text: "Inertial Measurement Units", Anchor: "imu"}}},
	{ID: "lidar", ChapterPath: "sensors/lidar", SectionHeading: "LiDAR", Text: "[Section: LiDAR]\n\nA LiDAR measures distance by timing a laser pulse. A spinning LiDAR at 10 Hz sees the room ten times per second.", Headings: []rag.Heading{{Level: 2, Text: "LiDAR", Anchor: "lidar"}}},
}

// Repair is a book whose vocabulary lies one or two edits from common words.
var Repair = []rag.Chunk{
	{ID: "perception", ChapterPath: "robot/perception", SectionHeading: "Perception", Text: "Perception turns camera images into a model of the world. Think of a movie studio: each camera films one part of the set and the director cuts them into one scene. Weak Wi-Fi reception delays the images."},
	{ID: "position", ChapterPath: "robot/position", SectionHeading: "Joint Position", Text: "An encoder reports the position of each joint. Send a command to move the joint to a new position. The encoder readout is sampled at 1 kHz."},
	{ID: "impedance", ChapterPath: "robot/impedance", SectionHeading: "Impedance Control", Text: "Impedance control makes a joint behave like a spring. Calibrate the sensors before you tune the stiffness."},
}
