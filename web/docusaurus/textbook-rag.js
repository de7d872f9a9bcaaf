// textbook-rag.js: the textbook tutor on every page of a Docusaurus site.
//
// Copy this file beside docusaurus.config.js and add one line there:
//
//   plugins: [['./textbook-rag.js', {tutor: 'https://tutor.example.edu'}]],
//
// tutor is the origin textbook-rag serves on (list the site's origin in
// its --cors-origins). Source links lead to the site's own pages: its
// baseUrl and docs path ('docs', or the docsPath option where the docs
// plugin's routeBasePath differs), relative, so the same build works on
// any host it is deployed to. bookUrl, when given, is used as it is.
module.exports = function textbookRag(context, options) {
  const opts = options || {};
  const tutor = String(opts.tutor || '').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+$/.test(tutor)) {
    throw new Error(
      "textbook-rag: set the tutor option to the tutor's origin, as in " +
        "plugins: [['./textbook-rag.js', {tutor: 'https://tutor.example.edu'}]] (got " +
        JSON.stringify(opts.tutor) + ')',
    );
  }
  const docsPath = String(opts.docsPath === undefined ? 'docs' : opts.docsPath).replace(/^\/+|\/+$/g, '');
  const bookUrl = opts.bookUrl
    ? String(opts.bookUrl).replace(/\/+$/, '')
    : (context.siteConfig.baseUrl.replace(/\/+$/, '') + '/' + docsPath).replace(/\/+$/, '');
  return {
    name: 'textbook-rag',
    injectHtmlTags() {
      return {
        headTags: [{tagName: 'link', attributes: {rel: 'preconnect', href: tutor}}],
        postBodyTags: [
          {
            tagName: 'script',
            attributes: {src: tutor + '/widget.js', async: true, 'data-api': tutor, 'data-book-url': bookUrl},
          },
        ],
      };
    },
  };
};
