/*
 * The console's few comforts, without a library: instants shown in the browser's time zone (the UTC one stays in the
 * title, on hover), and the overview's self-updates announced politely and pausable.
 */
(function () {
  function localTimes(root) {
    root.querySelectorAll('time[datetime]').forEach(function (time) {
      var at = new Date(time.getAttribute('datetime'));
      if (isNaN(at.getTime()) || time.classList.contains('local')) { return; }
      time.title = time.textContent.trim();
      time.textContent = at.toLocaleString(undefined, {year: 'numeric', month: '2-digit', day: '2-digit',
        hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short'});
      time.classList.add('local');
    });
  }
  window.projectionsConsole = {
    localTimes: localTimes,
    announce: function (text) {
      var live = document.getElementById('live');
      if (live) { live.textContent = text; }
    },
    paused: function () { return window.sessionStorage.getItem('projections-updates-paused') === 'true'; },
    togglePause: function (button) {
      var paused = !window.projectionsConsole.paused();
      window.sessionStorage.setItem('projections-updates-paused', String(paused));
      window.projectionsConsole.showPause(button);
    },
    // the button's two labels are the page's (data-pause, data-resume: texts of the bundle), in its language
    showPause: function (button) {
      var paused = window.projectionsConsole.paused();
      button.textContent = paused ? button.getAttribute('data-resume') : button.getAttribute('data-pause');
      button.setAttribute('aria-pressed', String(paused));
    }
  };
  document.addEventListener('DOMContentLoaded', function () { localTimes(document); });
})();
