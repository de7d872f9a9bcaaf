module.exports = {
  title: 'First Steps in the Kitchen',
  url: 'https://example.org',
  baseUrl: '/',
  presets: [['classic', {docs: {sidebarPath: './sidebars.ts'}}]],
};
