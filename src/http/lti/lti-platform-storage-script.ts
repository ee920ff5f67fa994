/**
 * The script of the LTI 1.3 platform-storage pages (LTI Client Side postMessages, `lti.put_data`
 * and `lti.get_data`), for browsers that do not keep the login's cookie in the course's frame.
 * On the login page it stores the login's secret with the platform, then goes on to the
 * platform's authorization URL; on the launch page it reads the secret back and posts it with the
 * launch form. Messages go only to the platform's origin, and answers are taken only from it.
 * Served as a file, since the pages' policy allows no inline script; what it needs is in the
 * `data-lti-*` attributes of the page's element marked `data-lti-storage`.
 */
export const PLATFORM_STORAGE_SCRIPT_PATH = '/lti/assets/platform-storage.js';

export const PLATFORM_STORAGE_SCRIPT = `(function () {
  'use strict';
  var element = document.querySelector('[data-lti-storage]');
  if (!element) return;
  var data = element.dataset;
  var action = data.ltiStorage;
  var bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  var messageId = Array.prototype.map.call(bytes, function (byte) { return (byte + 256).toString(16).slice(1); }).join('');
  var owner = window.parent !== window ? window.parent : window.opener;
  var target = null;
  try {
    target = data.ltiTarget === '_parent' ? owner : owner && owner.frames[data.ltiTarget];
  } catch (error) {
    target = null;
  }
  var finished = false;
  function finish(value) {
    if (finished) return;
    finished = true;
    window.removeEventListener('message', listen);
    if (action === 'put') {
      // Stored or not, the login goes on: the cookie may still carry it.
      window.location.replace(data.ltiNext);
    } else if (typeof value === 'string' && value !== '') {
      element.elements.namedItem('platform_storage_secret').value = value;
      element.submit();
    } else {
      var status = document.getElementById('lti-storage-status');
      if (status) status.textContent = data.ltiFailed;
    }
  }
  function listen(event) {
    var message = event.data;
    if (event.origin !== data.ltiOrigin || !message || typeof message !== 'object') return;
    if (message.message_id !== messageId || message.subject !== 'lti.' + action + '_data.response') return;
    finish(message.error ? undefined : message.value);
  }
  if (!target || typeof target.postMessage !== 'function') {
    finish(undefined);
    return;
  }
  window.addEventListener('message', listen);
  var request = { subject: 'lti.' + action + '_data', message_id: messageId, key: data.ltiKey };
  if (action === 'put') request.value = data.ltiValue;
  target.postMessage(request, data.ltiOrigin);
  setTimeout(function () { finish(undefined); }, Number(data.ltiWait));
})();
`;
