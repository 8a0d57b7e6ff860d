package io.jtick.feedsim;

import io.jtick.boot.ApiErrors;
import io.jtick.core.feed.FeedSupervisor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;

import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/** Parameter checks of the feed REST API; the tickerplant port is closed, so a started feed stays connecting. */
@WebMvcTest(value = FeedController.class, properties = {"tick.feed.tp-port=1", "tick.feed.data-dir=${jtick.shared.data:../shared/data}"})
@Import({FeedSimConfiguration.class, ApiErrors.class})
class FeedControllerTest {
    @Autowired
    private MockMvc mvc;

    @Autowired
    private FeedSupervisor feeds;

    @AfterEach
    void stopFeed() {
        feeds.stop();
    }

    private ResultActions start(final String body) throws Exception {
        return mvc.perform(post("/api/feed/start").contentType(MediaType.APPLICATION_JSON).content(body));
    }

    @Test
    void shouldStartTheWhitePaperFeedAndRefuseASecondStart() throws Exception {
        start("{\"table\":\"trade\",\"r\":10,\"u\":1,\"t\":1,\"syms\":100}")
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.running").value(true))
            .andExpect(jsonPath("$.parameters.r").value(10))
            .andExpect(jsonPath("$.parameters.syms").value(100))
            .andExpect(jsonPath("$.parameters.pace").value("timer"));
        start("{\"table\":\"quote\"}")
            .andExpect(status().isConflict())
            .andExpect(jsonPath("$.error", containsString("already running")));
        mvc.perform(get("/api/feed")).andExpect(status().isOk()).andExpect(jsonPath("$.running").value(true))
            .andExpect(jsonPath("$.rowsSent").value(0));
        mvc.perform(post("/api/feed/stop")).andExpect(status().isOk()).andExpect(jsonPath("$.running").value(false));
        start("{\"table\":\"quote\",\"ex\":2}").andExpect(status().isOk()).andExpect(jsonPath("$.parameters.ex").value(2));
    }

    @Test
    void shouldReportIdleBeforeAnyStart() throws Exception {
        mvc.perform(get("/api/feed")).andExpect(status().isOk())
            .andExpect(jsonPath("$.running").value(false))
            .andExpect(jsonPath("$.state").value("idle"))
            .andExpect(jsonPath("$.backPressureWaits").value(0));
    }

    @Test
    void shouldRejectBadParametersWithTheReason() throws Exception {
        start("{\"r\":0}").andExpect(status().isBadRequest()).andExpect(jsonPath("$.error", containsString("[r=0]")));
        start("{\"t\":0}").andExpect(status().isBadRequest()).andExpect(jsonPath("$.error", containsString("[t=0]")));
        start("{\"u\":0}").andExpect(status().isBadRequest()).andExpect(jsonPath("$.error", containsString("[u=0]")));
        start("{\"table\":\"trades\"}").andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error", containsString("unknown table")));
        start("{\"syms\":0}").andExpect(status().isBadRequest()).andExpect(jsonPath("$.error", containsString("[syms=0]")));
        start("{\"ex\":-1}").andExpect(status().isBadRequest()).andExpect(jsonPath("$.error", containsString("[ex=-1]")));
        start("{\"source\":\"bloomberg\"}").andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error", containsString("unknown source")));
        start("{\"pace\":\"warp\"}").andExpect(status().isBadRequest()).andExpect(jsonPath("$.error", containsString("unknown pace")));
        start("{\"pace\":\"recorded\"}").andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error", containsString("replay source")));
        start("{\"source\":\"taq\",\"speed\":0}").andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error", containsString("speed")));
        start("{\"maxRows\":-5}").andExpect(status().isBadRequest()).andExpect(jsonPath("$.error", containsString("maxRows")));
        start("{\"source\":\"taq\",\"file\":\"no-such-file.csv.gz\"}").andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error", containsString("no-such-file.csv.gz")));
        start("{\"source\":\"algoseek\",\"file\":\"no-such-dir\"}").andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error", containsString("not found")));
        start("{\"r\":").andExpect(status().isBadRequest()).andExpect(jsonPath("$.error", containsString("malformed")));
        mvc.perform(get("/api/feed")).andExpect(jsonPath("$.running").value(false));
    }
}
