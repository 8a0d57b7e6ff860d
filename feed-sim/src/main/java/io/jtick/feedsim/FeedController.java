package io.jtick.feedsim;

import io.jtick.boot.ApiErrors.ApiException;
import io.jtick.core.feed.FeedRequest;
import io.jtick.core.feed.FeedSupervisor;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/feed/start} (400 on bad parameters, 409 while a feed runs), {@code POST /api/feed/stop},
 * {@code GET /api/feed}: the body is a {@link FeedRequest}, the answer the {@link FeedSupervisor.Status}.
 */
@RestController
@RequestMapping("/api/feed")
class FeedController {
    private final FeedSupervisor feeds;

    FeedController(final FeedSupervisor feeds) {
        this.feeds = feeds;
    }

    @PostMapping("/start")
    FeedSupervisor.Status start(@RequestBody(required = false) final FeedRequest request) {
        try {
            return feeds.start(request == null ? FeedRequest.defaults() : request);
        } catch (final FeedSupervisor.AlreadyRunning e) {
            throw new ApiException(HttpStatus.CONFLICT, "a feed is already running; POST /api/feed/stop first [state=" + e.state() + "]");
        }
    }

    @PostMapping("/stop")
    FeedSupervisor.Status stop() {
        return feeds.stop();
    }

    @GetMapping
    FeedSupervisor.Status status() {
        return feeds.status();
    }
}
