// The sample textbook's site config: textbook-rag reads its title (without
// running this file) to name the course, as it does for a course team's
// Docusaurus site beside its docs folder.
module.exports = {
  title: 'Physical AI & Humanoid Robotics',
  tagline: 'A short textbook on robots that act in the physical world',
  url: 'http://localhost:8001',
  baseUrl: '/',
};
