// Runs before first paint (loaded synchronously from <head>): apply the stored theme
// ('light' | 'dark' | 'system') so a dark-mode user never sees a white flash.
(function () {
  try {
    var t = localStorage.getItem('contextscope-theme');
    var d = t === 'dark' || ((t === null || t === 'system') && matchMedia('(prefers-color-scheme: dark)').matches);
    document.documentElement.classList.toggle('dark', d);
  } catch (e) {}
})();
