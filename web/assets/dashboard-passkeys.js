// Passkeys for the dashboard (web/dashboard/passkeys.ts): a button with data-passkey="enrol" or
// "sign-in" asks its data-options URL for WebAuthn options, lets @simplewebauthn/browser (served
// from our origin) talk to the authenticator, and posts the answer to its data-verify URL. Both posts
// are ordinary form posts carrying the form token, like every dashboard form.
(function () {
  'use strict';
  var lib = window.SimpleWebAuthnBrowser;

  function post(url, csrf, fields) {
    var body = new URLSearchParams(Object.assign({ csrf: csrf }, fields));
    return fetch(url, { method: 'POST', body: body, credentials: 'same-origin', headers: { Accept: 'application/json' } }).then(function (response) {
      return response.json().then(function (json) {
        if (!response.ok) throw new Error(json.error || 'The dashboard refused this passkey.');
        return json;
      });
    });
  }

  function run(button) {
    var status = document.getElementById(button.getAttribute('aria-describedby') || '');
    var csrf = button.getAttribute('data-csrf');
    var say = function (text) {
      if (status) status.textContent = text;
    };
    button.disabled = true;
    say('Waiting for your passkey…');
    post(button.getAttribute('data-options'), csrf, {})
      .then(function (options) {
        return button.getAttribute('data-passkey') === 'enrol'
          ? lib.startRegistration({ optionsJSON: options })
          : lib.startAuthentication({ optionsJSON: options });
      })
      .then(function (answer) {
        return post(button.getAttribute('data-verify'), csrf, { response: JSON.stringify(answer) });
      })
      .then(function (done) {
        window.location.assign(done.redirect);
      })
      .catch(function (error) {
        button.disabled = false;
        say(error && error.name === 'NotAllowedError' ? 'The passkey prompt was closed or timed out. Try again.' : error.message);
      });
  }

  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button[data-passkey]');
    if (!button || !lib) return;
    event.preventDefault();
    run(button);
  });
})();
